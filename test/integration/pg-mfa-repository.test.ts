/**
 * The MFA repository's contract on both stores: every scenario runs against SQLite (through the store's
 * asynchronous face) and PostgreSQL (a real server), with the same expected answers. The single-use writes
 * (verifying, advancing the TOTP step, using a recovery code) are raced the way two controllers sharing one
 * database race them: PostgreSQL's from two connection pools, SQLite's through its one store. "Held" races go
 * further: the first write stays uncommitted until the rival's is seen waiting for it (on PostgreSQL, for its
 * row lock), so the rival's re-check of a row changed under it is what is tested, not a lucky ordering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  MfaAuditEvent,
  MfaEnrollment,
  MfaRepository,
  SealedRecoveryCode,
} from '../../controller/store/mfa-repository.js';
import { MAX_AUDIT_PER_IDENTITY, MfaQueries } from '../../controller/store/repositories/mfa-queries.js';
import { POSTGRES } from '../../controller/store/sql/dialect.js';
import { postgresFace } from '../../controller/store/sql/faces.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { lockWaiter } from '../helpers/pg-test-tools.js';
import { sqliteContractStore, twoPostgresViews } from '../helpers/contract-stores.js';

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

/** One store's MFA repository, as one controller sees it, and what the scenarios need around it. */
interface Backend {
  mfa: MfaRepository;
  /** the same database as a second controller sees it (SQLite: the same store, as it has one writer) */
  rival: MfaRepository;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** resolves once a rival's write is waiting for the open transaction */
  rivalWaiting(): Promise<void>;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Backend> {
  const { store, close } = sqliteContractStore('postern-mfa-contract-');
  return {
    mfa: store.mfa,
    rival: store.mfa,
    transaction: (fn) => store.transaction(fn),
    // A call from outside the transaction queues on the store's write lock as soon as it is made.
    rivalWaiting: () => Promise.resolve(),
    close,
  };
}

async function openPostgres(): Promise<Backend> {
  const { db, rivalDb, close } = await twoPostgresViews(server);
  return {
    mfa: postgresFace(new MfaQueries(POSTGRES), db),
    rival: postgresFace(new MfaQueries(POSTGRES), rivalDb),
    transaction: (fn) => db.transaction(fn),
    rivalWaiting: () => lockWaiter(db),
    close,
  };
}

/** Both controllers call at once; answers both results, sorted (false before true). */
const race = async (backend: Backend, call: (mfa: MfaRepository) => Promise<boolean>) =>
  (await Promise.all([call(backend.mfa), call(backend.rival)])).sort();

/**
 * `call` runs in a transaction that stays open until the same call from the rival controller waits for it;
 * then it commits. Answers [ours, the rival's].
 */
async function heldRace(
  backend: Backend,
  call: (mfa: MfaRepository) => Promise<boolean>,
): Promise<boolean[]> {
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const ours = backend.transaction(async () => {
    const result = await call(backend.mfa);
    entered();
    await held;
    return result;
  });
  await inside;
  const theirs = call(backend.rival);
  await backend.rivalWaiting();
  release();
  return [await ours, await theirs];
}

const enrollment = (identityId: string, fields: Partial<MfaEnrollment> = {}): MfaEnrollment => ({
  id: `mfa-${identityId}`,
  identityId,
  isVerified: false,
  sealedSecret: Buffer.from(`sealed secret of ${identityId}\u0000\u00ff`, 'latin1'),
  lastStep: null,
  createdAt: at(0),
  updatedAt: at(0),
  verifiedAt: null,
  startedBy: `session-of-${identityId}`,
  ...fields,
});

/** Codes whose ids do not sort in the order they are written, so only the write order explains the answer. */
const codes = (prefix: string, ...ids: string[]): SealedRecoveryCode[] =>
  ids.map((id) => ({
    id: `${prefix}-${id}`,
    sealed: Buffer.from([0, 0xff, ...Buffer.from(`${prefix}-${id}`)]),
  }));

const unused = (list: SealedRecoveryCode[]) => list.map((c) => ({ ...c, used: false }));

const event = (id: string, fields: Partial<MfaAuditEvent> = {}): MfaAuditEvent => ({
  id,
  at: at(0),
  eventType: 'authenticate',
  identityId: 'i-1',
  apiSessionId: 'api-1',
  actorIdentityId: null,
  sourceIp: '192.0.2.1',
  outcome: 'success',
  factor: 'totp',
  reason: null,
  ...fields,
});

describe.each([
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
])('%s', (_name, open) => {
  let backend: Backend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(() => backend?.close());

  describe('enrollments and recovery codes', () => {
    it('stores an enrollment once per identity, its sealed secret and codes as written', async () => {
      const { mfa } = backend;
      expect(await mfa.sample()).toBeUndefined();
      const stored = enrollment('i-1');
      const written = codes('i-1', 'c', 'a', 'b', '0');
      expect(await mfa.create(stored, written)).toBe(true);

      expect(await mfa.get('i-1')).toEqual(stored);
      expect((await mfa.get('i-1'))?.sealedSecret).toBeInstanceOf(Buffer);
      expect(await mfa.sample()).toEqual(stored);
      expect(await mfa.isVerified('i-1')).toBe(false);
      expect(await mfa.countVerified()).toBe(0);
      expect(await mfa.recoveryCodes('i-1')).toEqual(unused(written));
      expect(await mfa.countRecoveryCodes('i-1')).toBe(4);

      // A second enrollment for the identity changes nothing, codes included.
      expect(await mfa.create(enrollment('i-1', { id: 'other' }), codes('i-1', 'z'))).toBe(false);
      expect(await mfa.get('i-1')).toEqual(stored);
      expect(await mfa.recoveryCodes('i-1')).toEqual(unused(written));

      expect(await mfa.create(enrollment('i-none'), [])).toBe(true);
      expect(await mfa.recoveryCodes('i-none', true)).toEqual([]);
      expect(await mfa.get('nobody')).toBeUndefined();
    });

    it('of two controllers enrolling one identity at once, one stores its enrollment', async () => {
      const results = await race(backend, (mfa) => mfa.create(enrollment('i-race'), codes('i-race', 'x')));
      expect(results).toEqual([false, true]);
      expect(await backend.mfa.recoveryCodes('i-race')).toEqual(unused(codes('i-race', 'x')));
    });

    it('uses a recovery code once, and still knows it afterwards', async () => {
      const { mfa } = backend;
      const written = codes('i-2', '9', '1', '5');
      await mfa.create(enrollment('i-2'), written);
      expect(await mfa.consumeRecoveryCode('i-2', 'i-2-1')).toBe(true);
      expect(await mfa.consumeRecoveryCode('i-2', 'i-2-1')).toBe(false);
      expect(await mfa.consumeRecoveryCode('i-2', 'no-such-code')).toBe(false);
      // Another identity's code is not this one's to use.
      expect(await mfa.consumeRecoveryCode('i-1', 'i-2-5')).toBe(false);

      expect(await mfa.recoveryCodes('i-2')).toEqual(unused([written[0]!, written[2]!]));
      expect(await mfa.recoveryCodes('i-2', true)).toEqual([
        { ...written[0], used: false },
        { ...written[1], used: true },
        { ...written[2], used: false },
      ]);
      expect(await mfa.countRecoveryCodes('i-2')).toBe(2);
    });

    it('replaces the codes with new ones, in the order given', async () => {
      const { mfa } = backend;
      await mfa.create(enrollment('i-3'), codes('i-3', 'old-1', 'old-2'));
      await mfa.consumeRecoveryCode('i-3', 'i-3-old-1');
      const fresh = codes('i-3', 'q', 'b', 'x', 'a');
      await mfa.replaceRecoveryCodes('i-3', fresh);
      expect(await mfa.recoveryCodes('i-3', true)).toEqual(unused(fresh));
      expect(await mfa.consumeRecoveryCode('i-3', 'i-3-old-2')).toBe(false);
      expect(await mfa.countRecoveryCodes('i-3')).toBe(4);
    });

    it('verifies once, and accepts only a step newer than the last', async () => {
      const { mfa } = backend;
      await mfa.create(enrollment('i-4'), []);
      // Before verifying, a step can be accepted (what SQLite allows too): verifying then needs a newer one.
      expect(await mfa.advanceStep(enrollment('i-4'), 50, at(1))).toBe(true);
      expect(await mfa.markVerified(enrollment('i-4'), 50, at(2))).toBe(false);
      expect(await mfa.markVerified(enrollment('i-4'), 51, at(3))).toBe(true);
      expect(await mfa.markVerified(enrollment('i-4'), 52, at(4))).toBe(false);
      expect(await mfa.get('i-4')).toEqual(
        enrollment('i-4', { isVerified: true, lastStep: 51, verifiedAt: at(3), updatedAt: at(3) }),
      );
      expect(await mfa.isVerified('i-4')).toBe(true);
      expect(await mfa.countVerified()).toBe(1);

      expect(await mfa.advanceStep(enrollment('i-4'), 51, at(5))).toBe(false);
      expect(await mfa.advanceStep(enrollment('i-4'), 40, at(5))).toBe(false);
      // Real TOTP steps are in the tens of millions (30 s periods since 1970); the column is a bigint.
      expect(await mfa.advanceStep(enrollment('i-4'), 58_000_000, at(6))).toBe(true);
      expect((await mfa.get('i-4'))?.lastStep).toBe(58_000_000);
      expect((await mfa.get('i-4'))?.updatedAt).toEqual(at(6));
      expect(await mfa.markVerified(enrollment('nobody'), 1, at(1))).toBe(false);
      expect(await mfa.advanceStep(enrollment('nobody'), 1, at(1))).toBe(false);
    });

    it('verifies or advances only the enrollment judged, not one started again since', async () => {
      const { mfa } = backend;
      // What a controller judged a code against, before another removed it and the user enrolled again.
      const judged = enrollment('i-again');
      await mfa.create(judged, []);
      expect(await mfa.delete('i-again')).toBe(true);
      const again = enrollment('i-again', { id: 'mfa-i-again-2', createdAt: at(5), updatedAt: at(5) });
      await mfa.create(again, []);

      expect(await mfa.markVerified(judged, 10, at(6))).toBe(false);
      expect(await mfa.advanceStep(judged, 10, at(6))).toBe(false);
      expect(await mfa.get('i-again')).toEqual(again);
      expect(await mfa.isVerified('i-again')).toBe(false);
      // The enrollment that is there now still verifies with its own code.
      expect(await mfa.advanceStep(again, 10, at(7))).toBe(true);
      expect(await mfa.markVerified(again, 11, at(8))).toBe(true);
    });

    it('tells which of many identities have a verified enrollment, in one read', async () => {
      const { mfa } = backend;
      await mfa.create(enrollment('v-1'), []);
      await mfa.create(enrollment('v-2'), []);
      expect(await mfa.markVerified(enrollment('v-1'), 10, at(1))).toBe(true);

      expect(await mfa.verifiedAmong(['v-3', 'v-2', 'v-1'])).toEqual(new Set(['v-1']));
      expect(await mfa.verifiedAmong(['v-2', 'v-3'])).toEqual(new Set());
      expect(await mfa.verifiedAmong([])).toEqual(new Set());
    });

    it('of two controllers verifying, advancing the step or using a code at once, exactly one wins', async () => {
      const { mfa } = backend;
      for (let n = 0; n < 8; n++) {
        const identityId = `i-race-${n}`;
        await mfa.create(enrollment(identityId), codes(identityId, 'only'));
        expect(await race(backend, (m) => m.markVerified(enrollment(identityId), 100, at(1)))).toEqual([
          false,
          true,
        ]);
        expect(await race(backend, (m) => m.advanceStep(enrollment(identityId), 101, at(2)))).toEqual([
          false,
          true,
        ]);
        expect(await race(backend, (m) => m.consumeRecoveryCode(identityId, `${identityId}-only`))).toEqual([
          false,
          true,
        ]);
      }
      await mfa.create(enrollment('i-held'), codes('i-held', 'only'));
      expect(await heldRace(backend, (m) => m.markVerified(enrollment('i-held'), 100, at(1)))).toEqual([
        true,
        false,
      ]);
      expect(await heldRace(backend, (m) => m.advanceStep(enrollment('i-held'), 101, at(2)))).toEqual([
        true,
        false,
      ]);
      expect(await heldRace(backend, (m) => m.consumeRecoveryCode('i-held', 'i-held-only'))).toEqual([
        true,
        false,
      ]);
    });

    it('removes an enrollment with its codes, once', async () => {
      const { mfa } = backend;
      await mfa.create(enrollment('i-5'), codes('i-5', 'a'));
      expect(await mfa.delete('i-5')).toBe(true);
      expect(await mfa.delete('i-5')).toBe(false);
      expect(await mfa.get('i-5')).toBeUndefined();
      expect(await mfa.recoveryCodes('i-5', true)).toEqual([]);
      expect(await mfa.consumeRecoveryCode('i-5', 'i-5-a')).toBe(false);
      // Enrolling again starts afresh: nothing of the old codes is kept, not even their ids.
      expect(await mfa.create(enrollment('i-5', { id: 'mfa-i-5-again' }), codes('i-5', 'a'))).toBe(true);
      expect(await mfa.recoveryCodes('i-5')).toEqual(unused(codes('i-5', 'a')));
    });
  });

  describe('audit log', () => {
    const events = [
      event('e-1', { identityId: 'a-1', eventType: 'enroll', factor: null, at: at(10) }),
      event('e-2', { identityId: 'a-1', eventType: 'verify', at: at(20) }),
      event('e-3', { identityId: 'a-2', outcome: 'failure', reason: 'invalid-code', at: at(30) }),
      event('e-4', { identityId: 'a-1', factor: 'recovery-code', sourceIp: '198.51.100.9', at: at(40) }),
      event('e-5', {
        identityId: 'a-2',
        eventType: 'admin-remove',
        actorIdentityId: 'admin',
        apiSessionId: 'api-admin',
        factor: null,
        at: at(50),
      }),
      // Written last with an earlier time: the log is in the order written, not by time.
      event('e-6', { identityId: 'a-1', outcome: 'failure', reason: 'replayed-code', at: at(5) }),
    ];

    it('lists newest first, with the total, filtered by any field', async () => {
      const { mfa } = backend;
      for (const e of events) await mfa.recordAudit(e);
      const all = await mfa.listAudit({ limit: 100, offset: 0 });
      expect(all).toEqual({ items: [...events].reverse(), totalCount: 6 });

      const list = async (query: Parameters<MfaRepository['listAudit']>[0]) => {
        const page = await mfa.listAudit(query);
        return [page.items.map((e) => e.id), page.totalCount];
      };
      const page = { limit: 100, offset: 0 };
      expect(await list({ ...page, identityId: 'a-1' })).toEqual([['e-6', 'e-4', 'e-2', 'e-1'], 4]);
      expect(await list({ ...page, eventType: 'authenticate' })).toEqual([['e-6', 'e-4', 'e-3'], 3]);
      expect(await list({ ...page, outcome: 'failure' })).toEqual([['e-6', 'e-3'], 2]);
      expect(await list({ ...page, identityId: 'a-1', outcome: 'failure' })).toEqual([['e-6'], 1]);
      expect(await list({ ...page, factor: 'recovery-code' })).toEqual([['e-4'], 1]);
      expect(await list({ ...page, sourceIp: '198.51.100.9' })).toEqual([['e-4'], 1]);
      expect(await list({ ...page, actorIdentityId: 'admin' })).toEqual([['e-5'], 1]);
      expect(await list({ ...page, apiSessionId: 'api-1' })).toEqual([
        ['e-6', 'e-4', 'e-3', 'e-2', 'e-1'],
        5,
      ]);
      expect(await list({ ...page, identityId: 'nobody' })).toEqual([[], 0]);
      expect(await list({ limit: 2, offset: 1, identityId: 'a-1' })).toEqual([['e-4', 'e-2'], 4]);
      expect(await list({ limit: 2, offset: 10 })).toEqual([[], 6]);
    });

    it(`keeps the newest ${MAX_AUDIT_PER_IDENTITY} events of each identity`, async () => {
      const { mfa } = backend;
      const written = MAX_AUDIT_PER_IDENTITY + 3;
      await backend.transaction(async () => {
        for (let n = 0; n < written; n++) await mfa.recordAudit(event(`busy-${n}`, { identityId: 'busy' }));
      });
      const kept = await mfa.listAudit({ identityId: 'busy', limit: 1, offset: MAX_AUDIT_PER_IDENTITY - 1 });
      expect(kept.totalCount).toBe(MAX_AUDIT_PER_IDENTITY);
      expect(kept.items.map((e) => e.id)).toEqual(['busy-3']);
      expect((await mfa.listAudit({ identityId: 'busy', limit: 1, offset: 0 })).items[0]?.id).toBe(
        `busy-${written - 1}`,
      );
      // Others' history is untouched.
      expect((await mfa.listAudit({ identityId: 'a-1', limit: 100, offset: 0 })).totalCount).toBe(4);
    });
  });
});
