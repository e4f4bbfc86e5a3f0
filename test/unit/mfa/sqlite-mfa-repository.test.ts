import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../../controller/store/database.js';
import { MAX_AUDIT_PER_IDENTITY, MfaQueries } from '../../../controller/store/repositories/mfa-queries.js';
import { SQLITE } from '../../../controller/store/sql/dialect.js';
import { sqliteFace, type SyncFace } from '../../../controller/store/sql/faces.js';
import type { MfaAuditEvent, MfaEnrollment } from '../../../controller/store/mfa-repository.js';
import { tempDir } from '../../helpers/controller.js';

let dir: string;
let db: Db;
let repo: SyncFace<MfaQueries>;
const at = new Date('2030-01-01T00:00:00.000Z');

const enrollment = (identityId: string): MfaEnrollment => ({
  id: `enrollment-${identityId}`,
  identityId,
  isVerified: false,
  sealedSecret: randomBytes(49),
  startedBy: null,
  lastStep: null,
  createdAt: at,
  updatedAt: at,
  verifiedAt: null,
});
const codes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `code-${i}`, sealed: randomBytes(40) }));

beforeEach(() => {
  dir = tempDir('postern-mfa-repo-');
  db = openDatabase(dir);
  repo = sqliteFace(new MfaQueries(SQLITE), db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('MfaQueries on SQLite', () => {
  it('keeps one enrollment per identity', () => {
    expect(repo.create(enrollment('i1'), codes(10))).toBe(true);
    expect(repo.create({ ...enrollment('i1'), id: 'another' }, codes(10))).toBe(false);
    expect(repo.get('i1')?.id).toBe('enrollment-i1');
    expect(repo.countRecoveryCodes('i1')).toBe(10);
  });

  it('verifies once, and only with a step newer than any accepted', () => {
    repo.create(enrollment('i1'), []);
    expect(repo.isVerified('i1')).toBe(false);
    expect(repo.markVerified(enrollment('i1'), 100, at)).toBe(true);
    expect(repo.markVerified(enrollment('i1'), 101, at)).toBe(false);
    expect(repo.get('i1')).toMatchObject({ isVerified: true, lastStep: 100, verifiedAt: at });
    expect(repo.isVerified('i1')).toBe(true);
  });

  it('advances the last step only forwards (compare-and-set)', () => {
    repo.create(enrollment('i1'), []);
    expect(repo.advanceStep(enrollment('i1'), 100, at)).toBe(true);
    expect(repo.advanceStep(enrollment('i1'), 100, at)).toBe(false);
    expect(repo.advanceStep(enrollment('i1'), 99, at)).toBe(false);
    expect(repo.advanceStep(enrollment('i1'), 102, at)).toBe(true);
    expect(repo.get('i1')?.lastStep).toBe(102);
    expect(repo.advanceStep(enrollment('nobody'), 1, at)).toBe(false);
  });

  it('consumes a recovery code exactly once', () => {
    repo.create(enrollment('i1'), codes(3));
    expect(repo.consumeRecoveryCode('i1', 'code-1')).toBe(true);
    expect(repo.consumeRecoveryCode('i1', 'code-1')).toBe(false);
    expect(repo.recoveryCodes('i1').map((c) => c.id)).toEqual(['code-0', 'code-2']);
  });

  it('replaces the whole set, and deletes the codes with the enrollment', () => {
    repo.create(enrollment('i1'), codes(3));
    repo.replaceRecoveryCodes('i1', [{ id: 'new', sealed: randomBytes(40) }]);
    expect(repo.recoveryCodes('i1').map((c) => c.id)).toEqual(['new']);
    expect(repo.delete('i1')).toBe(true);
    expect(repo.delete('i1')).toBe(false);
    expect(repo.recoveryCodes('i1')).toEqual([]);
    expect(repo.get('i1')).toBeUndefined();
  });

  it('lists audit events newest first, filtered and paged', () => {
    const event = (n: number, extra: Partial<MfaAuditEvent> = {}): MfaAuditEvent => ({
      id: `e${n}`,
      at: new Date(at.getTime() + n),
      eventType: 'authenticate',
      identityId: 'i1',
      apiSessionId: 's1',
      actorIdentityId: null,
      sourceIp: '127.0.0.1',
      outcome: 'success',
      factor: 'totp',
      reason: null,
      ...extra,
    });
    for (let n = 0; n < 5; n++)
      repo.recordAudit(event(n, n % 2 ? { outcome: 'failure', factor: null, reason: 'invalid-code' } : {}));
    repo.recordAudit(event(5, { identityId: 'i2' }));

    expect(repo.listAudit({ limit: 10, offset: 0 }).items.map((e) => e.id)).toEqual([
      'e5',
      'e4',
      'e3',
      'e2',
      'e1',
      'e0',
    ]);
    const failures = repo.listAudit({ limit: 10, offset: 0, identityId: 'i1', outcome: 'failure' });
    expect(failures.items.map((e) => e.id)).toEqual(['e3', 'e1']);
    expect(failures.items[0]).toEqual(event(3, { outcome: 'failure', factor: null, reason: 'invalid-code' }));
    const page = repo.listAudit({ limit: 2, offset: 1, identityId: 'i1' });
    expect([page.items.map((e) => e.id), page.totalCount]).toEqual([['e3', 'e2'], 5]);
  });

  it('keeps the newest MAX_AUDIT_PER_IDENTITY events of an identity, and leaves others alone', () => {
    const event = (n: number, identityId: string): MfaAuditEvent => ({
      id: `${identityId}-${n}`,
      at: new Date(at.getTime() + n),
      eventType: 'authenticate',
      identityId,
      apiSessionId: null,
      actorIdentityId: null,
      sourceIp: '127.0.0.1',
      outcome: 'failure',
      factor: null,
      reason: 'invalid-code',
    });
    repo.recordAudit(event(0, 'quiet'));
    const total = MAX_AUDIT_PER_IDENTITY + 150;
    for (let n = 0; n < total; n++) repo.recordAudit(event(n, 'noisy'));
    const kept = repo.listAudit({ limit: 1, offset: 0, identityId: 'noisy' });
    expect(kept.totalCount).toBe(MAX_AUDIT_PER_IDENTITY);
    expect(kept.items[0]!.id).toBe(`noisy-${total - 1}`);
    const oldest = repo.listAudit({ limit: 1, offset: MAX_AUDIT_PER_IDENTITY - 1, identityId: 'noisy' });
    expect(oldest.items[0]!.id).toBe(`noisy-${total - MAX_AUDIT_PER_IDENTITY}`);
    expect(repo.listAudit({ limit: 10, offset: 0, identityId: 'quiet' }).totalCount).toBe(1);
  });
});
