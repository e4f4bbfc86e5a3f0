/**
 * The contract of the authenticator, enrollment and API session repositories on both stores: every scenario
 * runs against SQLite (through the store's asynchronous face) and PostgreSQL (a real server), with the same
 * expected answers. The single-use writes are raced the way two controllers sharing one database race them:
 * PostgreSQL's from two connection pools, SQLite's through its one store. "Held" races go further: the first
 * write stays uncommitted until the rival's is seen waiting for it (on PostgreSQL, for its row lock), so the
 * rival's re-check of a row changed under it is what is tested, not a lucky ordering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiSession, CertAuthenticator, Enrollment, UpdbAuthenticator } from '../../controller/model.js';
import {
  UniqueViolation,
  type ApiSessionRepository,
  type AuthenticatorRepository,
  type EnrollmentRepository,
} from '../../controller/store/repository.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import { AuthenticatorQueries } from '../../controller/store/repositories/authenticator-queries.js';
import { EnrollmentQueries } from '../../controller/store/repositories/enrollment-queries.js';
import { POSTGRES } from '../../controller/store/sql/dialect.js';
import { postgresFace } from '../../controller/store/sql/faces.js';
import { PgApiSessionRepository } from '../../controller/store/postgres/api-session-repository.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { lockWaiter } from '../helpers/pg-test-tools.js';
import { sqliteContractStore, twoPostgresViews } from '../helpers/contract-stores.js';

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

interface Repositories {
  authenticators: AuthenticatorRepository;
  enrollments: EnrollmentRepository;
  apiSessions: ApiSessionRepository;
}

/** One store's repositories, as one controller sees them, and what the scenarios need around them. */
interface Backend extends Repositories {
  /** the same database as a second controller sees it (SQLite: the same store, as it has one writer) */
  rival: Repositories;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /** resolves once a rival's write is waiting for the open transaction */
  rivalWaiting(): Promise<void>;
  /** an identities row, which enrollments reference */
  addIdentity(id: string): Promise<void>;
  close(): Promise<void>;
}

const INSERT_IDENTITY = `INSERT INTO identities (id, name, doc, created_at, updated_at) VALUES (?, ?, '{}', ?, ?)`;

async function openSqlite(): Promise<Backend> {
  const { store, close } = sqliteContractStore('postern-auth-contract-');
  return {
    authenticators: store.authenticators,
    enrollments: store.enrollments,
    apiSessions: store.apiSessions,
    rival: store,
    transaction: (fn) => store.transaction(fn),
    // A call from outside the transaction queues on the store's write lock as soon as it is made.
    rivalWaiting: () => Promise.resolve(),
    addIdentity: async (id) => {
      store.db.prepare(INSERT_IDENTITY).run(id, id, at(0).toISOString(), at(0).toISOString());
    },
    close,
  };
}

async function openPostgres(): Promise<Backend> {
  const { db, rivalDb, close } = await twoPostgresViews(server);
  const repositories = (d: PgDatabase): Repositories => ({
    authenticators: postgresFace(new AuthenticatorQueries(POSTGRES), d),
    enrollments: postgresFace(new EnrollmentQueries(POSTGRES), d),
    apiSessions: new PgApiSessionRepository(d),
  });
  return {
    ...repositories(db),
    rival: repositories(rivalDb),
    transaction: (fn) => db.transaction(fn),
    rivalWaiting: () => lockWaiter(db),
    addIdentity: async (id) => {
      await db.run(INSERT_IDENTITY, [id, id, at(0).toISOString(), at(0).toISOString()]);
    },
    close,
  };
}

/** Both controllers call at once; answers [ours, the rival's]. */
const race = <T>(backend: Backend, call: (r: Repositories) => Promise<T>) =>
  Promise.all([call(backend), call(backend.rival)]);

/**
 * `first` runs in a transaction that stays open until `second`, from the rival controller, waits for it; then
 * it commits. Answers [first's result, second's result]; a rejection is answered as its error.
 */
async function heldRace<T>(
  backend: Backend,
  first: (r: Repositories) => Promise<T>,
  second: (r: Repositories) => Promise<unknown> = first,
): Promise<[T, unknown]> {
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const ours = backend.transaction(async () => {
    const result = await first(backend);
    entered();
    await held;
    return result;
  });
  await inside;
  const theirs = second(backend.rival).catch((err: unknown) => err);
  await backend.rivalWaiting();
  release();
  return [await ours, await theirs];
}

const updb = (id: string, fields: Partial<UpdbAuthenticator> = {}): UpdbAuthenticator => ({
  id,
  identityId: 'i-1',
  method: 'updb',
  username: `user-${id}`,
  passwordHash: `hash-${id}`,
  createdAt: at(0),
  updatedAt: at(0),
  ...fields,
});

const cert = (id: string, fields: Partial<CertAuthenticator> = {}): CertAuthenticator => ({
  id,
  identityId: 'i-1',
  method: 'cert',
  fingerprint: `fp-${id}`,
  certPem: `-----BEGIN CERTIFICATE-----\n${id}\n-----END CERTIFICATE-----\n`,
  createdAt: at(0),
  updatedAt: at(0),
  ...fields,
});

const enrollment = (id: string, fields: Partial<Enrollment> = {}): Enrollment => ({
  id,
  identityId: 'i-1',
  method: 'ott',
  username: null,
  tokenHash: `token-hash-${id}`,
  nonce: `nonce-${id}`,
  issuedAt: at(0),
  expiresAt: at(3600),
  usedAt: null,
  createdAt: at(0),
  updatedAt: at(0),
  ...fields,
});

const session = (id: string, fields: Partial<ApiSession> = {}): ApiSession => ({
  id,
  identityId: 'i-1',
  authenticatorId: 'a-1',
  ipAddress: '192.0.2.7',
  configTypes: ['ct-1', 'ct-2'],
  envInfo: { os: 'linux', arch: 'x64' },
  sdkInfo: { type: 'postern', version: '0.1.0' },
  isMfaRequired: false,
  isMfaComplete: false,
  createdAt: at(0),
  updatedAt: at(0),
  lastActivityAt: at(0),
  ...fields,
});

/** A UniqueViolation as its field and value, to compare; any other error as it is. */
const violation = (err: unknown) =>
  err instanceof UniqueViolation ? { uniqueViolation: err.field, value: err.value } : err;
/** How a write ended: 'done', or the UniqueViolation it threw. */
const outcome = (write: Promise<unknown>) => write.then(() => 'done', violation);
const uniqueViolation = (field: string, value: unknown) => ({ uniqueViolation: field, value });

const ids = (items: readonly { id: string }[]) => items.map((i) => i.id);

describe.each([
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
])('%s', (_name, open) => {
  describe('authenticators', () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await open();
    });
    afterAll(() => backend?.close());

    it('stores password and certificate logins and finds them by id, username and fingerprint', async () => {
      const { authenticators } = backend;
      expect(await authenticators.hasCertAuthenticators()).toBe(false);
      const password = updb('a-1', { username: 'alice' });
      const certificate = cert('a-2', { fingerprint: 'ab'.repeat(32), createdAt: at(1), updatedAt: at(2) });
      await authenticators.create(password);
      await authenticators.create(certificate);

      expect(await authenticators.get('a-1')).toEqual(password);
      expect(await authenticators.get('a-2')).toEqual(certificate);
      expect(await authenticators.get('a-3')).toBeUndefined();
      expect(await authenticators.getByUsername('alice')).toEqual(password);
      expect(await authenticators.getByUsername('Alice')).toBeUndefined();
      expect(await authenticators.getByFingerprint('ab'.repeat(32))).toEqual(certificate);
      expect(await authenticators.getByFingerprint('alice')).toBeUndefined();
      expect(await authenticators.hasCertAuthenticators()).toBe(true);
      expect(await authenticators.listByIdentity('i-1')).toEqual([password, certificate]);
      expect(await authenticators.listByIdentity('i-2')).toEqual([]);
    });

    it('throws UniqueViolation for a taken username or fingerprint, on create and update', async () => {
      const { authenticators } = backend;
      await authenticators.create(updb('b-1', { identityId: 'i-b', username: 'bob' }));
      await authenticators.create(cert('b-2', { identityId: 'i-b', fingerprint: 'cd'.repeat(32) }));
      await authenticators.create(updb('b-3', { identityId: 'i-b', username: 'bert' }));

      expect(await outcome(authenticators.create(updb('b-4', { username: 'bob' })))).toEqual(
        uniqueViolation('username', 'bob'),
      );
      expect(await outcome(authenticators.create(cert('b-5', { fingerprint: 'cd'.repeat(32) })))).toEqual(
        uniqueViolation('fingerprint', 'cd'.repeat(32)),
      );
      expect(await outcome(authenticators.update(updb('b-3', { username: 'bob' })))).toEqual(
        uniqueViolation('username', 'bob'),
      );
      // The username is checked before the row is looked for.
      expect(await outcome(authenticators.update(updb('b-9', { username: 'bob' })))).toEqual(
        uniqueViolation('username', 'bob'),
      );
      expect(await authenticators.update(updb('b-9', { username: 'nobody-has-it' }))).toBe(false);
      // A taken id is a database error, not a UniqueViolation, in both.
      const taken = await authenticators
        .create(updb('b-1', { username: 'fresh-name' }))
        .catch((e: unknown) => e);
      expect(taken).toBeInstanceOf(Error);
      expect(taken).not.toBeInstanceOf(UniqueViolation);

      const renamed = updb('b-3', {
        identityId: 'i-b',
        username: 'bertha',
        passwordHash: 'new',
        updatedAt: at(5),
      });
      expect(await authenticators.update(renamed)).toBe(true);
      expect(await authenticators.update(renamed)).toBe(true);
      expect(await authenticators.get('b-3')).toEqual(renamed);
      expect(await authenticators.getByUsername('bert')).toBeUndefined();
      expect(
        await authenticators.update(
          cert('b-2', { identityId: 'i-b', fingerprint: 'cd'.repeat(32), updatedAt: at(6) }),
        ),
      ).toBe(true);
      expect((await authenticators.get('b-2'))?.updatedAt).toEqual(at(6));
    });

    it('leaves the transaction usable after a UniqueViolation', async () => {
      const { authenticators } = backend;
      await authenticators.create(updb('c-1', { identityId: 'i-c', username: 'carol' }));
      await backend.transaction(async () => {
        await expect(authenticators.create(updb('c-2', { username: 'carol' }))).rejects.toBeInstanceOf(
          UniqueViolation,
        );
        await expect(authenticators.update(updb('c-1', { username: 'alice' }))).rejects.toBeInstanceOf(
          UniqueViolation,
        );
        await authenticators.create(updb('c-3', { identityId: 'i-c', username: 'carla' }));
      });
      expect(ids(await authenticators.listByIdentity('i-c'))).toEqual(['c-1', 'c-3']);
    });

    it('of two controllers giving out one username at once, the second gets UniqueViolation', async () => {
      const results = await heldRace(backend, (r) =>
        r.authenticators.create(updb(`d-${Math.random()}`, { identityId: 'i-d', username: 'dave' })),
      );
      expect([results[0], violation(results[1])]).toEqual([undefined, uniqueViolation('username', 'dave')]);
      expect(await backend.authenticators.listByIdentity('i-d')).toHaveLength(1);
    });

    it('lists usernames bytewise, then certificates by fingerprint, with the total', async () => {
      const { authenticators } = backend;
      for (const a of (await authenticators.list({ limit: 100, offset: 0 })).items)
        await authenticators.delete(a.id);
      for (const [id, username] of [
        ['l-1', 'émile'],
        ['l-2', 'bob'],
        ['l-3', 'Zed'],
        ['l-4', 'alice'],
      ])
        await authenticators.create(updb(id!, { identityId: 'i-l', username: username! }));
      await authenticators.create(cert('l-5', { identityId: 'i-l', fingerprint: 'ff'.repeat(32) }));
      await authenticators.create(cert('l-6', { identityId: 'i-l', fingerprint: '0a'.repeat(32) }));

      const all = await authenticators.list({ limit: 100, offset: 0 });
      expect(ids(all.items)).toEqual(['l-3', 'l-4', 'l-2', 'l-1', 'l-6', 'l-5']);
      expect(all.totalCount).toBe(6);
      // The page as asked for (the list now takes the filter grammar, whose limit and offset it answers with).
      expect(await authenticators.list({ limit: 2, offset: 1 })).toEqual({
        items: [await authenticators.get('l-4'), await authenticators.get('l-2')],
        totalCount: 6,
        limit: 2,
        offset: 1,
      });
      expect(await authenticators.list({ limit: 10, offset: 6 })).toEqual({
        items: [],
        totalCount: 6,
        limit: 10,
        offset: 6,
      });
    });

    it('deletes one login, or all of an identity', async () => {
      const { authenticators } = backend;
      await authenticators.create(updb('e-1', { identityId: 'i-e', username: 'eve' }));
      await authenticators.create(cert('e-2', { identityId: 'i-e' }));
      await authenticators.create(updb('e-3', { identityId: 'i-f', username: 'frank' }));
      expect(await authenticators.delete('e-1')).toBe(true);
      expect(await authenticators.delete('e-1')).toBe(false);
      await authenticators.deleteByIdentity('i-e');
      expect(await authenticators.listByIdentity('i-e')).toEqual([]);
      expect(ids(await authenticators.listByIdentity('i-f'))).toEqual(['e-3']);
    });

    it('reads the logins of many identities at once, by identity, each in listByIdentity’s order', async () => {
      const { authenticators } = backend;
      // Written interleaved, each identity's out of id order: only the per-identity order explains the answer.
      await authenticators.create(updb('m-9', { identityId: 'i-m3', username: 'mona', createdAt: at(1) }));
      await authenticators.create(updb('m-5', { identityId: 'i-m1', username: 'milo', createdAt: at(2) }));
      await authenticators.create(cert('m-7', { identityId: 'i-m3', createdAt: at(3) }));
      await authenticators.create(cert('m-1', { identityId: 'i-m1', createdAt: at(4) }));

      const read = await authenticators.listByIdentities(['i-m3', 'i-m2', 'i-m1']);
      expect(read).toEqual([
        ...(await authenticators.listByIdentity('i-m1')),
        ...(await authenticators.listByIdentity('i-m3')),
      ]);
      expect(ids(read)).toEqual(['m-5', 'm-1', 'm-9', 'm-7']);
      expect(read[0]).toEqual(updb('m-5', { identityId: 'i-m1', username: 'milo', createdAt: at(2) }));
      expect(await authenticators.listByIdentities(['i-m2', 'nobody'])).toEqual([]);
      expect(await authenticators.listByIdentities([])).toEqual([]);
    });

    it('lists an identity’s logins by creation time, then id, whatever order they were written in', async () => {
      const { authenticators } = backend;
      // Written newest first, and two of one millisecond in reverse id order: the order is the data's, not
      // the table's (SQLite once answered in insertion order here).
      await authenticators.create(cert('o-3', { identityId: 'i-o', createdAt: at(9) }));
      await authenticators.create(updb('o-2', { identityId: 'i-o', username: 'olga', createdAt: at(1) }));
      await authenticators.create(updb('o-1', { identityId: 'i-o', username: 'otto', createdAt: at(1) }));
      expect(ids(await authenticators.listByIdentity('i-o'))).toEqual(['o-1', 'o-2', 'o-3']);
      expect(ids(await authenticators.listByIdentities(['i-o']))).toEqual(['o-1', 'o-2', 'o-3']);
    });
  });

  describe('enrollments', () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await open();
      for (const id of ['i-1', 'i-2', 'i-3']) await backend.addIdentity(id);
    });
    afterAll(() => backend?.close());

    it('finds an outstanding enrollment by id, and any by token hash', async () => {
      const { enrollments } = backend;
      const ott = enrollment('a-1');
      const password = enrollment('a-2', { method: 'updb', username: 'dora', createdAt: at(1) });
      await enrollments.create(ott);
      await enrollments.create(password);

      expect(await enrollments.get('a-1')).toEqual(ott);
      expect(await enrollments.getByTokenHash('token-hash-a-2')).toEqual(password);
      expect(await enrollments.pendingWithUsername('dora')).toEqual(password);
      expect(await enrollments.markUsed(password, at(10))).toBe(true);

      expect(await enrollments.get('a-2')).toBeUndefined();
      expect(await enrollments.getByTokenHash('token-hash-a-2')).toEqual({
        ...password,
        usedAt: at(10),
        updatedAt: at(10),
      });
      expect(await enrollments.pendingWithUsername('dora')).toBeUndefined();
      expect(await enrollments.getByTokenHash('no-such-hash')).toBeUndefined();
    });

    it('refuses a second pending enrollment promising one username, and frees it once used', async () => {
      const { enrollments } = backend;
      const first = enrollment('b-1', { method: 'updb', username: 'erin' });
      await enrollments.create(first);
      expect(
        await outcome(
          enrollments.create(enrollment('b-2', { method: 'updb', username: 'erin', identityId: 'i-2' })),
        ),
      ).toEqual(uniqueViolation('username', 'erin'));
      // Enrollments without a username never conflict.
      await enrollments.create(enrollment('b-3'));
      await enrollments.create(enrollment('b-4', { identityId: 'i-2' }));

      expect(await enrollments.markUsed(first, at(1))).toBe(true);
      await enrollments.create(enrollment('b-5', { method: 'updb', username: 'erin', identityId: 'i-2' }));
      expect((await enrollments.pendingWithUsername('erin'))?.id).toBe('b-5');
    });

    it('throws UniqueViolation only for the username: an unknown identity is a database error', async () => {
      const { enrollments } = backend;
      const err = await enrollments
        .create(enrollment('c-1', { identityId: 'nobody' }))
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(UniqueViolation);
      expect(await enrollments.getByTokenHash('token-hash-c-1')).toBeUndefined();
    });

    it('leaves the transaction usable after a UniqueViolation', async () => {
      const { enrollments } = backend;
      await enrollments.create(enrollment('d-1', { method: 'updb', username: 'fay' }));
      await backend.transaction(async () => {
        await expect(
          enrollments.create(enrollment('d-2', { method: 'updb', username: 'fay' })),
        ).rejects.toBeInstanceOf(UniqueViolation);
        await enrollments.create(enrollment('d-3', { method: 'updb', username: 'faye' }));
      });
      expect((await enrollments.pendingWithUsername('faye'))?.id).toBe('d-3');
    });

    it('of two controllers promising one username at once, the second gets UniqueViolation', async () => {
      let n = 0;
      const results = await heldRace(backend, (r) =>
        r.enrollments.create(enrollment(`e-${++n}`, { method: 'updb', username: 'gus' })),
      );
      expect([results[0], violation(results[1])]).toEqual([undefined, uniqueViolation('username', 'gus')]);
    });

    it('spends a token once, only while it is the current, unexpired one', async () => {
      const { enrollments } = backend;
      const e = enrollment('f-1', { identityId: 'i-3', expiresAt: at(100) });
      await enrollments.create(e);
      expect(await enrollments.markUsed({ id: 'f-1', tokenHash: 'wrong' }, at(1))).toBe(false);
      expect(await enrollments.markUsed(e, at(100))).toBe(false);

      // A refresh: the old token no longer spends it, the new one does, once.
      const refreshed = {
        ...e,
        tokenHash: 'token-hash-f-1-b',
        nonce: 'n2',
        issuedAt: at(150),
        expiresAt: at(300),
        updatedAt: at(150),
      };
      expect(await enrollments.update(refreshed)).toBe(true);
      expect(await enrollments.get('f-1')).toEqual(refreshed);
      expect(await enrollments.markUsed(e, at(160))).toBe(false);
      expect(await enrollments.markUsed(refreshed, at(160))).toBe(true);
      expect(await enrollments.markUsed(refreshed, at(161))).toBe(false);

      // Used: no longer refreshed nor deleted.
      expect(await enrollments.update({ ...refreshed, tokenHash: 'token-hash-f-1-c' })).toBe(false);
      expect(await enrollments.delete('f-1')).toBe(false);
      expect(await enrollments.getByTokenHash('token-hash-f-1-b')).toEqual({
        ...refreshed,
        usedAt: at(160),
        updatedAt: at(160),
      });
    });

    it('of two controllers redeeming one token at once, exactly one succeeds', async () => {
      const { enrollments } = backend;
      for (let n = 0; n < 10; n++) {
        const e = enrollment(`g-${n}`, { identityId: 'i-3' });
        await enrollments.create(e);
        const results = await race(backend, (r) => r.enrollments.markUsed(e, at(10)));
        expect(results.sort()).toEqual([false, true]);
      }
      const held = enrollment('g-held', { identityId: 'i-3' });
      await enrollments.create(held);
      expect(await heldRace(backend, (r) => r.enrollments.markUsed(held, at(10)))).toEqual([true, false]);
    });

    it('lists outstanding enrollments oldest first, all or one identity’s, with the total', async () => {
      const { enrollments } = backend;
      const outstanding = await enrollments.listOutstanding({ limit: 100, offset: 0 });
      for (const e of outstanding.items) await enrollments.delete(e.id);
      await enrollments.create(enrollment('h-3', { identityId: 'i-1', createdAt: at(30) }));
      await enrollments.create(enrollment('h-2', { identityId: 'i-2', createdAt: at(20) }));
      await enrollments.create(enrollment('h-1b', { identityId: 'i-1', createdAt: at(10) }));
      await enrollments.create(enrollment('h-1a', { identityId: 'i-2', createdAt: at(10) }));
      const used = enrollment('h-0', { identityId: 'i-1', createdAt: at(0) });
      await enrollments.create(used);
      await enrollments.markUsed(used, at(1));

      const all = await enrollments.listOutstanding({ limit: 100, offset: 0 });
      expect([ids(all.items), all.totalCount]).toEqual([['h-1a', 'h-1b', 'h-2', 'h-3'], 4]);
      const page = await enrollments.listOutstanding({ limit: 2, offset: 1 });
      expect([ids(page.items), page.totalCount]).toEqual([['h-1b', 'h-2'], 4]);
      const mine = await enrollments.listOutstanding({ identityId: 'i-1', limit: 100, offset: 0 });
      expect([ids(mine.items), mine.totalCount]).toEqual([['h-1b', 'h-3'], 2]);
      expect(await enrollments.listOutstanding({ identityId: 'i-1', limit: 5, offset: 2 })).toEqual({
        items: [],
        totalCount: 2,
      });
      expect(await enrollments.listOutstanding({ identityId: 'nobody', limit: 5, offset: 0 })).toEqual({
        items: [],
        totalCount: 0,
      });
    });

    it('reads the outstanding enrollments of many identities at once, at most so many each', async () => {
      const { enrollments } = backend;
      for (const id of ['i-m1', 'i-m2', 'i-m3']) await backend.addIdentity(id);
      await enrollments.create(enrollment('m-4', { identityId: 'i-m3', createdAt: at(5) }));
      await enrollments.create(enrollment('m-3', { identityId: 'i-m1', createdAt: at(30) }));
      await enrollments.create(enrollment('m-2b', { identityId: 'i-m1', createdAt: at(20) }));
      // Created in the same millisecond: by id, as listOutstanding orders them.
      await enrollments.create(enrollment('m-2a', { identityId: 'i-m1', createdAt: at(20) }));
      const used = enrollment('m-0', { identityId: 'i-m1', createdAt: at(0) });
      await enrollments.create(used);
      await enrollments.markUsed(used, at(1));

      const outstandingOf = async (identityId: string, limit: number) =>
        (await enrollments.listOutstanding({ identityId, limit, offset: 0 })).items;
      const all = await enrollments.listOutstandingByIdentities(['i-m3', 'i-m2', 'i-m1'], 10);
      expect(all).toEqual([...(await outstandingOf('i-m1', 10)), ...(await outstandingOf('i-m3', 10))]);
      expect(ids(all)).toEqual(['m-2a', 'm-2b', 'm-3', 'm-4']);
      expect(all[3]).toEqual(enrollment('m-4', { identityId: 'i-m3', createdAt: at(5) }));
      const firstTwo = await enrollments.listOutstandingByIdentities(['i-m1', 'i-m3'], 2);
      expect(ids(firstTwo)).toEqual(['m-2a', 'm-2b', 'm-4']);
      expect(await enrollments.listOutstandingByIdentities(['i-m2', 'nobody'], 10)).toEqual([]);
      expect(await enrollments.listOutstandingByIdentities([], 10)).toEqual([]);
    });

    it('deletes an outstanding enrollment once', async () => {
      const { enrollments } = backend;
      await enrollments.create(enrollment('k-1'));
      expect(await enrollments.delete('k-1')).toBe(true);
      expect(await enrollments.delete('k-1')).toBe(false);
      expect(await enrollments.getByTokenHash('token-hash-k-1')).toBeUndefined();
    });
  });

  describe('API sessions', () => {
    let backend: Backend;
    beforeAll(async () => {
      backend = await open();
    });
    afterAll(() => backend?.close());

    it('finds a session by token hash and by id, its client-supplied parts exactly as given', async () => {
      const { apiSessions } = backend;
      // JSON that jsonb would refuse: a NUL and a lone surrogate.
      const s = session('a-1', { envInfo: { os: 'linux', odd: 'nul\u0000 lone\ud800 ünï' } });
      await apiSessions.create(s, 'token-hash-a-1');
      expect(await apiSessions.getByTokenHash('token-hash-a-1')).toEqual(s);
      expect(await apiSessions.get('a-1')).toEqual(s);
      expect(await apiSessions.getByTokenHash('a-1')).toBeUndefined();
      expect(await apiSessions.get('token-hash-a-1')).toBeUndefined();
    });

    it('updates a session, and touches only its last activity', async () => {
      const { apiSessions } = backend;
      const s = session('b-1');
      await apiSessions.create(s, 'token-hash-b-1');
      const passed = {
        ...s,
        isMfaRequired: true,
        isMfaComplete: true,
        updatedAt: at(5),
        lastActivityAt: at(5),
      };
      await apiSessions.update(passed);
      expect(await apiSessions.getByTokenHash('token-hash-b-1')).toEqual(passed);
      await apiSessions.touch('b-1', at(9));
      expect(await apiSessions.get('b-1')).toEqual({ ...passed, lastActivityAt: at(9) });
      // Neither fails on a session that is gone.
      await apiSessions.update(session('b-gone'));
      await apiSessions.touch('b-gone', at(9));
      expect(await apiSessions.get('b-gone')).toBeUndefined();
    });

    it('lists sessions oldest first, all or one identity’s, with the total', async () => {
      const { apiSessions } = backend;
      for (const s of (await apiSessions.list({ limit: 100, offset: 0 })).items)
        await apiSessions.delete(s.id);
      await apiSessions.create(session('c-3', { identityId: 'i-1', createdAt: at(30) }), 'th-c-3');
      await apiSessions.create(session('c-1', { identityId: 'i-2', createdAt: at(10) }), 'th-c-1');
      await apiSessions.create(session('c-2', { identityId: 'i-1', createdAt: at(20) }), 'th-c-2');

      const all = await apiSessions.list({ limit: 100, offset: 0 });
      expect([ids(all.items), all.totalCount]).toEqual([['c-1', 'c-2', 'c-3'], 3]);
      expect(all.items[0]).toEqual(session('c-1', { identityId: 'i-2', createdAt: at(10) }));
      const page = await apiSessions.list({ limit: 1, offset: 1 });
      expect([ids(page.items), page.totalCount]).toEqual([['c-2'], 3]);
      expect(await apiSessions.list({ limit: 5, offset: 3 })).toEqual({ items: [], totalCount: 3 });
      expect(ids(await apiSessions.listByIdentity('i-1'))).toEqual(['c-2', 'c-3']);
      expect(await apiSessions.listByIdentity('nobody')).toEqual([]);
    });

    it('reads the sessions of many identities at once, by identity, each oldest first', async () => {
      const { apiSessions } = backend;
      await apiSessions.create(session('m-3', { identityId: 'i-m3', createdAt: at(40) }), 'th-m-3');
      await apiSessions.create(session('m-9', { identityId: 'i-m1', createdAt: at(30) }), 'th-m-9');
      await apiSessions.create(session('m-1', { identityId: 'i-m3', createdAt: at(10) }), 'th-m-1');
      await apiSessions.create(session('m-5', { identityId: 'i-m1', createdAt: at(20) }), 'th-m-5');
      // A session the SQLite store has cached (read by token) reads the same in the list.
      const cached = await apiSessions.getByTokenHash('th-m-9');

      const read = await apiSessions.listByIdentities(['i-m3', 'i-m2', 'i-m1']);
      expect(read).toEqual([
        ...(await apiSessions.listByIdentity('i-m1')),
        ...(await apiSessions.listByIdentity('i-m3')),
      ]);
      expect(ids(read)).toEqual(['m-5', 'm-9', 'm-1', 'm-3']);
      expect(read[1]).toEqual(cached);
      // What the list answered is the caller's: changing it leaves what later reads answer as it was.
      read[1]!.envInfo.os = 'changed';
      expect(await apiSessions.getByTokenHash('th-m-9')).toEqual(cached);
      expect(await apiSessions.listByIdentities(['i-m2', 'nobody'])).toEqual([]);
      expect(await apiSessions.listByIdentities([])).toEqual([]);
    });

    it('deletes a session once', async () => {
      const { apiSessions } = backend;
      await apiSessions.create(session('d-1'), 'th-d-1');
      expect(await apiSessions.delete('d-1')).toBe(true);
      expect(await apiSessions.delete('d-1')).toBe(false);
      expect(await apiSessions.getByTokenHash('th-d-1')).toBeUndefined();
    });

    it('removes the sessions idle since before the cutoff, and answers what it removed', async () => {
      const { apiSessions } = backend;
      for (const s of (await apiSessions.list({ limit: 100, offset: 0 })).items)
        await apiSessions.delete(s.id);
      await apiSessions.create(session('e-1', { identityId: 'i-1', lastActivityAt: at(10) }), 'th-e-1');
      await apiSessions.create(session('e-2', { identityId: 'i-2', lastActivityAt: at(20) }), 'th-e-2');
      await apiSessions.create(session('e-3', { identityId: 'i-1', lastActivityAt: at(30) }), 'th-e-3');
      await apiSessions.touch('e-3', at(5));
      await apiSessions.touch('e-2', at(50));

      const removed = await apiSessions.deleteIdleSince(at(20));
      expect(removed.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        { id: 'e-1', identityId: 'i-1' },
        { id: 'e-3', identityId: 'i-1' },
      ]);
      expect(ids((await apiSessions.list({ limit: 100, offset: 0 })).items)).toEqual(['e-2']);
      expect(await apiSessions.deleteIdleSince(at(20))).toEqual([]);
    });

    it('of two controllers sweeping at once, each removed session is answered once', async () => {
      const { apiSessions } = backend;
      const idle = Array.from({ length: 20 }, (_, n) => `f-${String(n).padStart(2, '0')}`);
      for (const id of idle) await apiSessions.create(session(id, { lastActivityAt: at(1) }), `th-${id}`);
      const [ours, theirs] = await race(backend, (r) => r.apiSessions.deleteIdleSince(at(2)));
      expect(ids([...ours, ...theirs]).sort()).toEqual(idle);

      for (const id of idle) await apiSessions.create(session(id, { lastActivityAt: at(1) }), `th-${id}`);
      const [first, second] = await heldRace(backend, (r) => r.apiSessions.deleteIdleSince(at(2)));
      expect(ids(first as { id: string }[]).sort()).toEqual(idle);
      expect(second).toEqual([]);
    });

    it('keeps a session another controller touched while the sweep waited', async () => {
      const { apiSessions } = backend;
      await apiSessions.create(session('g-1', { lastActivityAt: at(1) }), 'th-g-1');
      const [, swept] = await heldRace(
        backend,
        (r) => r.apiSessions.touch('g-1', at(100)),
        (r) => r.apiSessions.deleteIdleSince(at(2)),
      );
      expect(swept).toEqual([]);
      expect((await apiSessions.get('g-1'))?.lastActivityAt).toEqual(at(100));
    });
  });
});
