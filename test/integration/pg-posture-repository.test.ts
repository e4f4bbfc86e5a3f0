/**
 * The posture repository's contract on both stores: every scenario runs against SQLite (through the store's
 * asynchronous face) and PostgreSQL (a real server), with the same expectations, so both give the same
 * answers. Then what only PostgreSQL has to show: `load` is one query, and racing deletes across two
 * controllers' pools are each answered true once.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../controller/store/database.js';
import { SqliteStore } from '../../controller/store/sqlite-store.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import { PgPostureRepository } from '../../controller/store/postgres/posture-repository.js';
import type {
  EdgeSession,
  FailedServiceRequest,
  PostureRepository,
} from '../../controller/store/posture-repository.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { addApiSession, endPool } from '../helpers/pg-test-tools.js';
import { tempDir } from '../helpers/controller.js';

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s));

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

/**
 * One store's posture repository, and a way to make and end the API sessions its rows need: an edge session,
 * and an API session's posture row, exist only while their API session does (foreign keys that cascade).
 */
interface Backend {
  posture: PostureRepository;
  addApiSession(id: string, identityId: string): Promise<void>;
  deleteApiSession(id: string): Promise<void>;
  /** writes what the store writes behind (PostgreSQL's times of repeated reports) */
  settle(): Promise<void>;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Backend> {
  const dir = tempDir('postern-posture-contract-');
  const store = new SqliteStore(openDatabase(dir));
  return {
    posture: store.posture,
    settle: async () => undefined,
    addApiSession: (id, identityId) =>
      store.apiSessions.create(
        {
          id,
          identityId,
          authenticatorId: 'a',
          ipAddress: '127.0.0.1',
          configTypes: [],
          envInfo: {},
          sdkInfo: {},
          isMfaRequired: false,
          isMfaComplete: false,
          createdAt: at(0),
          updatedAt: at(0),
          lastActivityAt: at(0),
        },
        `token-hash-${id}`,
      ),
    async deleteApiSession(id) {
      await store.apiSessions.delete(id);
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database; API sessions go in by SQL, as the PostgreSQL API-session repository is another's work. */
async function openPostgres(): Promise<Backend> {
  const pool = new pg.Pool({ connectionString: await server.createDatabase() });
  await migratePostgres(pool);
  const db = new PgDatabase(pool);
  const posture = new PgPostureRepository(db);
  return {
    posture,
    settle: () => posture.data.flushReportedTimes(),
    addApiSession: (id, identityId) => addApiSession(pool, id, identityId, at(0).toISOString()),
    async deleteApiSession(id) {
      await db.run('DELETE FROM api_sessions WHERE id = ?', [id]);
    },
    close: () => endPool(pool),
  };
}

const edgeSession = (fields: Partial<EdgeSession> & { id: string }): EdgeSession => ({
  tokenHash: `hash-${fields.id}`,
  identityId: 'i1',
  apiSessionId: 'api-1',
  serviceId: 'svc',
  type: 'Dial',
  createdAt: at(0),
  updatedAt: at(0),
  ...fields,
});

const failure = (n: number, fields: Partial<FailedServiceRequest> = {}): FailedServiceRequest => ({
  apiSessionId: 's',
  serviceId: `svc-${n}`,
  serviceName: 'svc',
  sessionType: 'Dial',
  when: at(n),
  policyFailures: [],
  ...fields,
});

/**
 * A describe block on a backend of its own (a fresh database or SQLite file), with these API sessions
 * (`[id, identityId]`) in it.
 */
function withBackend(
  open: () => Promise<Backend>,
  apiSessions: readonly (readonly [string, string])[] = [],
): () => Backend {
  let backend: Backend | undefined;
  beforeAll(async () => {
    backend = await open();
    for (const [id, identityId] of apiSessions) await backend.addApiSession(id, identityId);
  });
  afterAll(() => backend?.close());
  return () => backend!;
}

describe.each([
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
])('posture repository on %s', (_name, open) => {
  describe('posture data', () => {
    const backend = withBackend(open, [
      ['s1', 'i1'],
      ['a1', 'j1'],
      ['k1-a', 'k1'],
      ['k1-b', 'k1'],
      ['k2-a', 'k2'],
    ]);

    it('moves the time of facts reported again unchanged, and nothing else', async () => {
      const { data } = backend().posture;
      const os = { postureCheckId: 'c', type: 'Linux', version: '6.1.0', build: null };
      const process = { postureCheckId: 'p', isRunning: true, hash: 'h', signerFingerprints: ['s'] };
      await data.setOs('r1', { ...os, lastUpdatedAt: at(1) });
      await data.setMac('r1', { postureCheckId: 'm', lastUpdatedAt: at(1), addresses: ['aa'] });
      await data.setProcess('r1', { ...process, path: '/a', lastUpdatedAt: at(1) });
      await data.setProcess('r1', { ...process, path: '/b', lastUpdatedAt: at(1) });
      await data.setOs('r2', { ...os, lastUpdatedAt: at(1) });

      const later = new Date(at(1).getTime() + 120_000);
      await data.refreshReported('r1', [{ kind: 'os' }, { kind: 'process', path: '/b' }], later);
      await backend().settle();
      const loaded = await data.load('r1');
      expect(loaded.os).toEqual({ ...os, lastUpdatedAt: later });
      expect(loaded.mac?.lastUpdatedAt).toEqual(at(1));
      expect(loaded.processes.map((p) => [p.path, p.lastUpdatedAt])).toEqual([
        ['/a', at(1)],
        ['/b', later],
      ]);
      expect((await data.load('r2')).os?.lastUpdatedAt, "another identity's").toEqual(at(1));
      // A fact never stored stays absent.
      await data.refreshReported('r1', [{ kind: 'domain' }, { kind: 'process', path: '/c' }], later);
      await backend().settle();
      expect(await data.load('r1')).toMatchObject({
        domain: null,
        processes: [{ path: '/a' }, { path: '/b' }],
      });
    });

    it('never moves a stored time back for a late repeated report, and loads many identities as one each', async () => {
      const { data } = backend().posture;
      const os = { postureCheckId: 'c', type: 'Linux', version: '6.1.0', build: null };
      const process = { postureCheckId: 'p', isRunning: false, hash: 'h', signerFingerprints: [] };
      // Written, never loaded: no cached snapshot speaks for the rows.
      await data.setOs('t1', { ...os, lastUpdatedAt: at(10) });
      await data.setProcess('t1', { ...process, path: '/a', lastUpdatedAt: at(10) });
      await data.refreshReported('t1', [{ kind: 'os' }, { kind: 'process', path: '/a' }], at(5));
      await backend().settle();
      const loaded = await data.load('t1');
      expect([loaded.os?.lastUpdatedAt, loaded.processes[0]?.lastUpdatedAt]).toEqual([at(10), at(10)]);

      await data.setDomain('t2', { postureCheckId: 'd', lastUpdatedAt: at(1), domain: 'corp' });
      const many = await data.loadMany(['t1', 't2', 'nobody', 't1']);
      expect([...many.keys()]).toEqual(['t1', 't2', 'nobody']);
      expect(many.get('t1')).toEqual(loaded);
      expect(many.get('t2')).toEqual(await data.load('t2'));
      expect(many.get('nobody')).toEqual(await data.load('nobody'));
      // Only the parts asked for, of identities not cached (t3 is never loaded).
      await data.setOs('t3', { ...os, lastUpdatedAt: at(1) });
      await data.setProcess('t3', { ...process, path: '/b', lastUpdatedAt: at(1) });
      const some = await data.loadMany(['t3'], { kinds: ['os'] });
      expect(some.get('t3')).toMatchObject({ os: { version: '6.1.0' }, processes: [], apiSessions: {} });
      expect((await data.loadMany(['t3'], { kinds: [], processes: true })).get('t3')).toMatchObject({
        os: null,
        processes: [{ path: '/b', isRunning: false }],
      });
    });

    it('keeps the latest report per slot and per process path, and API-session data apart', async () => {
      const { data } = backend().posture;
      await data.setOs('i1', {
        postureCheckId: 'c1',
        lastUpdatedAt: at(1),
        type: 'Linux',
        version: '5.4.0',
        build: null,
      });
      await data.setOs('i1', {
        postureCheckId: 'c2',
        lastUpdatedAt: at(2),
        type: 'Linux',
        version: '6.1.0',
        build: '7',
      });
      const process = { postureCheckId: 'p', path: '/a', hash: '', signerFingerprints: [] };
      await data.setProcess('i1', { ...process, lastUpdatedAt: at(1), isRunning: true });
      await data.setProcess('i1', {
        ...process,
        lastUpdatedAt: at(3),
        isRunning: false,
        hash: 'x',
        signerFingerprints: ['s'],
      });
      await data.setProcess('i1', {
        ...process,
        postureCheckId: 'q',
        path: '/B',
        lastUpdatedAt: at(2),
        isRunning: true,
      });
      await data.setProcess('i1', { ...process, path: '/b', lastUpdatedAt: at(2), isRunning: true });
      await data.updateApiSession('s1', 'i1', { mfaPassedAt: at(5) });
      await data.updateApiSession('s1', 'i1', { wokenAt: at(6) });
      await data.setDomain('i2', { postureCheckId: 'd', lastUpdatedAt: at(1), domain: 'corp' });

      const loaded = await data.load('i1');
      expect(loaded.os).toEqual({
        postureCheckId: 'c2',
        lastUpdatedAt: at(2),
        type: 'Linux',
        version: '6.1.0',
        build: '7',
      });
      // Bytewise order: upper case before lower case.
      expect(loaded.processes).toEqual([
        {
          postureCheckId: 'q',
          lastUpdatedAt: at(2),
          path: '/B',
          isRunning: true,
          hash: '',
          signerFingerprints: [],
        },
        {
          postureCheckId: 'p',
          lastUpdatedAt: at(3),
          path: '/a',
          isRunning: false,
          hash: 'x',
          signerFingerprints: ['s'],
        },
        {
          postureCheckId: 'p',
          lastUpdatedAt: at(2),
          path: '/b',
          isRunning: true,
          hash: '',
          signerFingerprints: [],
        },
      ]);
      expect(loaded.apiSessions).toEqual({
        s1: { apiSessionId: 's1', mfaPassedAt: at(5), wokenAt: at(6), unlockedAt: null, sdkInfo: null },
      });
      expect(loaded.domain).toBeNull();
      expect(loaded.mac).toBeNull();

      await data.clearMfa('i1');
      expect((await data.load('i1')).apiSessions.s1?.mfaPassedAt).toBeNull();
      await data.deleteProcess('i1', '/a');
      expect((await data.load('i1')).processes.map((p) => p.path)).toEqual(['/B', '/b']);
      await data.deleteApiSession('s1');
      expect((await data.load('i1')).apiSessions).toEqual({});
      await data.deleteIdentity('i1');
      expect(await data.load('i1')).toEqual({
        identityId: 'i1',
        os: null,
        mac: null,
        domain: null,
        processes: [],
        apiSessions: {},
      });
      expect((await data.load('i2')).domain).toEqual({
        postureCheckId: 'd',
        lastUpdatedAt: at(1),
        domain: 'corp',
      });
    });

    it('keeps every fact kind, and text as SQLite gives it back', async () => {
      const { data } = backend().posture;
      const odd = 'x\u0000y "quoted" \\ é 🙂 \ud800';
      await data.setMac('m1', { postureCheckId: 'mac', lastUpdatedAt: at(1), addresses: ['aa:bb', odd] });
      await data.setDomain('m1', { postureCheckId: 'dom', lastUpdatedAt: at(2), domain: odd });
      await data.setOs('m1', {
        postureCheckId: 'os',
        lastUpdatedAt: at(3),
        type: 'Windows',
        version: odd,
        build: null,
      });
      // Stored text (not inside JSON): a lone surrogate is not UTF-8, both stores keep U+FFFD instead.
      await data.setProcess('m1', {
        postureCheckId: 'p\ud800',
        lastUpdatedAt: at(4),
        path: '/bin/\udc00x',
        isRunning: true,
        hash: 'h',
        signerFingerprints: [odd],
      });
      const loaded = await data.load('m1');
      expect(loaded.mac).toEqual({ postureCheckId: 'mac', lastUpdatedAt: at(1), addresses: ['aa:bb', odd] });
      expect(loaded.domain).toEqual({ postureCheckId: 'dom', lastUpdatedAt: at(2), domain: odd });
      expect(loaded.os).toEqual({
        postureCheckId: 'os',
        lastUpdatedAt: at(3),
        type: 'Windows',
        version: odd,
        build: null,
      });
      // Each store has its own replacement (SQLite three U+FFFD per surrogate, node-postgres one): both
      // well-formed, neither the surrogate.
      const [process] = loaded.processes;
      expect(process).toMatchObject({
        lastUpdatedAt: at(4),
        isRunning: true,
        hash: 'h',
        signerFingerprints: [odd],
      });
      expect(process!.postureCheckId).toMatch(/^p\ufffd+$/);
      expect(process!.path).toMatch(/^\/bin\/\ufffd+x$/);
    });

    it('writes only the API-session fields given, creating the row when missing', async () => {
      const { data } = backend().posture;
      await data.updateApiSession('a1', 'j1', {});
      expect((await data.load('j1')).apiSessions.a1).toEqual({
        apiSessionId: 'a1',
        mfaPassedAt: null,
        wokenAt: null,
        unlockedAt: null,
        sdkInfo: null,
      });
      await data.updateApiSession('a1', 'j1', {
        mfaPassedAt: at(1),
        unlockedAt: at(2),
        sdkInfo: { type: 'agent', odd: '\u0000\ud800' },
      });
      await data.updateApiSession('a1', 'j1', {});
      await data.updateApiSession('a1', 'j1', { wokenAt: at(3) });
      expect((await data.load('j1')).apiSessions.a1).toEqual({
        apiSessionId: 'a1',
        mfaPassedAt: at(1),
        wokenAt: at(3),
        unlockedAt: at(2),
        sdkInfo: { type: 'agent', odd: '\u0000\ud800' },
      });
      await data.updateApiSession('a1', 'j1', { mfaPassedAt: null, sdkInfo: null });
      expect((await data.load('j1')).apiSessions.a1).toMatchObject({ mfaPassedAt: null, sdkInfo: null });

      // A row keeps the identity it was made for, whoever writes it later.
      await data.updateApiSession('a1', 'j2', { wokenAt: at(9) });
      expect(await data.identityOfApiSession('a1')).toBe('j1');
      expect((await data.load('j1')).apiSessions.a1?.wokenAt).toEqual(at(9));
      expect((await data.load('j2')).apiSessions).toEqual({});
      expect(await data.identityOfApiSession('nobody')).toBeUndefined();
    });

    it('clears the TOTP pass of one identity only, and keeps access digests per API session', async () => {
      const { data } = backend().posture;
      await data.updateApiSession('k1-a', 'k1', { mfaPassedAt: at(1) });
      await data.updateApiSession('k1-b', 'k1', { mfaPassedAt: at(2) });
      await data.updateApiSession('k2-a', 'k2', { mfaPassedAt: at(3) });
      await data.clearMfa('k1');
      const k1 = await data.load('k1');
      expect(Object.values(k1.apiSessions).map((s) => s.mfaPassedAt)).toEqual([null, null]);
      expect((await data.load('k2')).apiSessions['k2-a']?.mfaPassedAt).toEqual(at(3));

      expect(await data.accessDigest('k1-a')).toBeNull();
      await data.setAccessDigest('k1-a', 'digest-1');
      await data.setAccessDigest('k1-a', 'digest-2');
      // No row, nothing written.
      await data.setAccessDigest('none', 'digest-x');
      expect(await data.accessDigest('k1-a')).toBe('digest-2');
      expect(await data.accessDigest('k1-b')).toBeNull();
      expect(await data.accessDigest('none')).toBeNull();
      expect(await data.identityOfApiSession('none')).toBeUndefined();
    });
  });

  describe('identities with API sessions', () => {
    const backend = withBackend(open, [
      ['s1', 'z'],
      ['s2', 'B'],
      ['s3', 'a'],
      ['s4', 'z'],
    ]);

    it('lists each identity once, sorted', async () => {
      const { data } = backend().posture;
      expect(await data.identitiesWithApiSessions()).toEqual([]);
      for (const [session, identity] of [
        ['s1', 'z'],
        ['s2', 'B'],
        ['s3', 'a'],
        ['s4', 'z'],
      ])
        await data.updateApiSession(session!, identity!, {});
      await data.setOs('facts-only', {
        postureCheckId: 'c',
        lastUpdatedAt: at(1),
        type: 'Linux',
        version: '1',
        build: null,
      });
      expect(await data.identitiesWithApiSessions()).toEqual(['B', 'a', 'z']);
    });
  });

  describe('failed requests', () => {
    const backend = withBackend(open);

    it('trims to the newest ones per identity, oldest first', async () => {
      const { failures } = backend().posture;
      for (let n = 0; n < 60; n++) await failures.add('i1', failure(n), 50);
      await failures.add('i2', failure(99), 50);
      const kept = await failures.list('i1');
      expect(kept.map((r) => r.serviceId)).toEqual(Array.from({ length: 50 }, (_, i) => `svc-${i + 10}`));
      expect(await failures.list('i2')).toHaveLength(1);
      for (let n = 0; n < 5; n++) await failures.add('i3', failure(n), 3);
      expect((await failures.list('i3')).map((r) => r.serviceId)).toEqual(['svc-2', 'svc-3', 'svc-4']);
      expect(await failures.count()).toBe(54);
    });

    it('lists every identity newest first, a page at a time, with what failed', async () => {
      const { failures } = backend().posture;
      const policyFailures = [
        {
          policyId: 'p',
          policyName: 'policy',
          checks: [
            {
              postureCheckId: 'c',
              postureCheckName: 'mfa',
              postureCheckType: 'MFA',
              actualValue: { passedMfa: false },
              expectedValue: { passedMfa: true },
              criteria: { timeoutSeconds: 60 },
            },
          ],
        },
      ];
      await failures.add('i4', failure(200, { policyFailures, sessionType: 'Bind' }), 50);
      const [newest, next] = await failures.recent(2, 0);
      expect(newest).toEqual({ ...failure(200, { policyFailures, sessionType: 'Bind' }), identityId: 'i4' });
      expect(next).toMatchObject({ identityId: 'i3', serviceId: 'svc-4' });
      expect((await failures.recent(2, 1)).map((r) => r.serviceId)).toEqual(['svc-4', 'svc-3']);
      expect(await failures.recent(1, 10_000)).toEqual([]);
      // Negative: no limit, no offset (SQLite's reading).
      expect(await failures.recent(-1, -5)).toHaveLength(55);
    });

    it('keeps none when asked to keep none, and forgets an identity', async () => {
      const { failures } = backend().posture;
      await failures.add('i5', failure(1), 50);
      await failures.add('i5', failure(2), 0);
      expect(await failures.list('i5')).toEqual([]);
      await failures.deleteByIdentity('i1');
      expect(await failures.list('i1')).toEqual([]);
      expect(await failures.count()).toBe(5);
    });
  });

  describe('edge sessions', () => {
    const backend = withBackend(open, [
      ['api-1', 'i1'],
      ['api-2', 'i2'],
      ...['api-d1', 'api-d2', 'api-d3', 'api-d4'].map((id) => [id, 'del'] as const),
      ['api-g', 'gone'],
      ['api-k', 'i1'],
    ]);

    it('finds sessions by id, token hash, API session and identity', async () => {
      const { sessions } = backend().posture;
      const e1 = edgeSession({ id: 'e1', createdAt: at(2), updatedAt: at(3) });
      const e2 = edgeSession({ id: 'e2', type: 'Bind', createdAt: at(1) });
      const e0 = edgeSession({ id: 'e0', createdAt: at(2) });
      const other = edgeSession({ id: 'x1', identityId: 'i2', apiSessionId: 'api-2' });
      for (const s of [e1, e2, e0, other]) await sessions.create(s);

      expect(await sessions.get('e1')).toEqual(e1);
      expect(await sessions.get('none')).toBeUndefined();
      expect(await sessions.getByTokenHash('hash-e2')).toEqual(e2);
      expect(await sessions.getByTokenHash('none')).toBeUndefined();
      const byId = (list: EdgeSession[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(byId(await sessions.getMany(['x1', 'e1', 'none', 'e1']))).toEqual([e1, other]);
      expect(await sessions.getMany([])).toEqual([]);
      expect(byId(await sessions.all())).toEqual([e0, e1, e2, other]);
      expect(await sessions.find('api-1', 'svc', 'Bind')).toEqual(e2);
      expect(await sessions.find('api-1', 'other', 'Dial')).toBeUndefined();
      // Oldest first, then by id.
      expect((await sessions.listByIdentity('i1')).map((s) => s.id)).toEqual(['e2', 'e0', 'e1']);
      expect(await sessions.identitiesWithSessions()).toEqual(['i1', 'i2']);
    });

    it('answers which deletes found their session', async () => {
      const { sessions } = backend().posture;
      for (const id of ['d1', 'd2', 'd3', 'd4'])
        await sessions.create(edgeSession({ id, identityId: 'del', apiSessionId: `api-${id}` }));
      expect(await sessions.delete('d1')).toBe(true);
      expect(await sessions.delete('d1')).toBe(false);
      expect(await sessions.deleteMany(['d3', 'none', 'd2', 'd3', 'd1'])).toEqual(['d3', 'd2']);
      expect(await sessions.deleteMany([])).toEqual([]);
      await sessions.deleteByApiSession('api-d4');
      expect(await sessions.listByIdentity('del')).toEqual([]);

      await sessions.create(edgeSession({ id: 'g1', identityId: 'gone' }));
      await sessions.create(edgeSession({ id: 'g2', identityId: 'gone', apiSessionId: 'api-g' }));
      await sessions.deleteByIdentity('gone');
      expect(await sessions.listByIdentity('gone')).toEqual([]);
      expect(await sessions.get('e1')).toBeDefined();
    });

    it('refuses a second session with the same id or token hash', async () => {
      const { sessions } = backend().posture;
      await sessions.create(edgeSession({ id: 'u1' }));
      await expect(sessions.create(edgeSession({ id: 'u1', tokenHash: 'fresh' }))).rejects.toThrow();
      await expect(sessions.create(edgeSession({ id: 'u2', tokenHash: 'hash-u1' }))).rejects.toThrow();
      expect(await sessions.get('u2')).toBeUndefined();
    });

    it("lists every identity's sessions for administrators: oldest first, filtered, sorted and paged", async () => {
      const { sessions } = backend().posture;
      await sessions.create(edgeSession({ id: 'l2', identityId: 'li', serviceId: 'ls', createdAt: at(20) }));
      await sessions.create(edgeSession({ id: 'l1', identityId: 'li', serviceId: 'ls', createdAt: at(10) }));
      await sessions.create(
        edgeSession({ id: 'l3', identityId: 'lj', serviceId: 'ls', type: 'Bind', createdAt: at(10) }),
      );
      const ids = (page: { items: EdgeSession[] }) => page.items.map((s) => s.id);
      const mine = { limit: 10, offset: 0, filter: 'serviceId = "ls"' };
      expect(ids(await sessions.list(mine))).toEqual(['l1', 'l3', 'l2']);
      expect((await sessions.list(mine)).totalCount).toBe(3);
      expect(ids(await sessions.list({ ...mine, filter: 'serviceId = "ls" and type = "Dial"' }))).toEqual([
        'l1',
        'l2',
      ]);
      expect(ids(await sessions.list({ ...mine, filter: 'identityId = "lj"' }))).toEqual(['l3']);
      const newest = await sessions.list({
        ...mine,
        filter: 'serviceId = "ls" sort by createdAt desc limit 1',
      });
      expect([ids(newest), newest.totalCount, newest.limit]).toEqual([['l2'], 3, 1]);
      const second = await sessions.list({ limit: 1, offset: 1, filter: 'serviceId = "ls"' });
      expect(ids(second)).toEqual(['l3']);
      expect((await sessions.list({ limit: 10, offset: 5, filter: 'serviceId = "ls"' })).totalCount).toBe(3);
      // The token hash is no field of the filter: it cannot be probed.
      await expect(sessions.list({ ...mine, filter: 'tokenHash = "hash-l1"' })).rejects.toThrow(/tokenHash/);
    });

    it('gives a session another token hash', async () => {
      const { sessions } = backend().posture;
      await sessions.create(edgeSession({ id: 'k1', apiSessionId: 'api-k', serviceId: 'ks' }));
      expect(await sessions.find('api-k', 'ks', 'Dial')).toMatchObject({ tokenHash: 'hash-k1' });
      expect(await sessions.setTokenHash('k1', 'rekeyed')).toBe(true);
      expect(await sessions.setTokenHash('none', 'rekeyed-2')).toBe(false);
      expect(await sessions.getByTokenHash('hash-k1')).toBeUndefined();
      expect((await sessions.getByTokenHash('rekeyed'))?.id).toBe('k1');
      expect(await sessions.find('api-k', 'ks', 'Dial'), 'not an old copy').toMatchObject({
        tokenHash: 'rekeyed',
      });
    });
  });

  describe('orphans', () => {
    const backend = withBackend(open);

    it('keeps no rows of API sessions that do not exist: none is written, and ending one removes its rows', async () => {
      const { posture, addApiSession, deleteApiSession } = backend();
      const { data, sessions } = posture;
      // `live` and `ending` are API sessions that exist; `gone` does not (it ended before its rows came).
      await addApiSession('live', 'i1');
      await addApiSession('ending', 'i1');
      await data.updateApiSession('gone', 'i1', {});
      await data.updateApiSession('live', 'i1', {});
      await data.updateApiSession('ending', 'i1', { wokenAt: at(1) });
      expect(await data.identityOfApiSession('gone'), 'no posture row written').toBeUndefined();
      await expect(sessions.create(edgeSession({ id: 'e1', apiSessionId: 'gone' }))).rejects.toThrow(
        /foreign key/i,
      );
      expect(await sessions.get('e1')).toBeUndefined();
      await sessions.create(edgeSession({ id: 'e2', apiSessionId: 'live' }));
      await sessions.create(edgeSession({ id: 'e3', apiSessionId: 'ending' }));
      expect(Object.keys((await data.load('i1')).apiSessions).sort()).toEqual(['ending', 'live']);

      // Ending an API session takes its edge sessions and posture row with it. Asked of the database: what
      // SQLite's repositories keep in memory goes when the engine forgets the API session (apiSession.deleted).
      await deleteApiSession('ending');
      expect((await sessions.listByIdentity('i1')).map((s) => s.id)).toEqual(['e2']);
      expect(await sessions.get('e3')).toBeUndefined();
      expect(await data.identityOfApiSession('ending')).toBeUndefined();
      expect(await data.identityOfApiSession('live')).toBe('i1');
      // So the sweeps find nothing left behind.
      expect(await sessions.deleteOrphans()).toBe(0);
      expect(await data.deleteOrphans()).toBe(0);
      expect(await sessions.identitiesWithSessions()).toEqual(['i1']);
      expect(Object.keys((await data.load('i1')).apiSessions)).toEqual(['live']);
    });
  });

  describe('service changes', () => {
    const backend = withBackend(open);

    it('keeps the last change per identity', async () => {
      const { changes } = backend().posture;
      expect(await changes.lastChangeAt('c1')).toBeUndefined();
      await changes.markChanged('c1', at(5));
      await changes.markChanged('c1', at(3));
      await changes.markChanged('c2', at(7));
      expect(await changes.lastChangeAt('c1')).toEqual(at(3));
      await changes.deleteByIdentity('c1');
      expect(await changes.lastChangeAt('c1')).toBeUndefined();
      expect(await changes.lastChangeAt('c2')).toEqual(at(7));
    });
  });
});

describe('posture repository on postgres only', () => {
  let url: string;
  const pools: pg.Pool[] = [];
  const pool = () => {
    const p = new pg.Pool({ connectionString: url });
    pools.push(p);
    return p;
  };
  beforeAll(async () => {
    url = await server.createDatabase();
    const admin = pool();
    await migratePostgres(admin);
    for (const [id, identityId] of [
      ['s1', 'i1'],
      ['s2', 'i1'],
      ['api-1', 'race'],
    ] as const)
      await addApiSession(admin, id, identityId);
  });
  afterAll(async () => {
    for (const p of pools) await endPool(p);
  });

  it('loads an identity in one query', async () => {
    const db = new PgDatabase(pool());
    const { data } = new PgPostureRepository(db);
    await data.setOs('i1', {
      postureCheckId: 'c',
      lastUpdatedAt: at(1),
      type: 'Linux',
      version: '1',
      build: null,
    });
    await data.setMac('i1', { postureCheckId: 'c', lastUpdatedAt: at(1), addresses: ['aa'] });
    for (const path of ['/a', '/b'])
      await data.setProcess('i1', {
        postureCheckId: 'p',
        lastUpdatedAt: at(1),
        path,
        isRunning: true,
        hash: '',
        signerFingerprints: [],
      });
    for (const session of ['s1', 's2']) await data.updateApiSession(session, 'i1', { wokenAt: at(2) });
    const query = vi.spyOn(db.pool, 'query');
    const loaded = await data.load('i1');
    expect(query).toHaveBeenCalledTimes(1);
    query.mockRestore();
    expect(loaded.processes).toHaveLength(2);
    expect(Object.keys(loaded.apiSessions)).toEqual(['s1', 's2']);
    expect(loaded.mac?.addresses).toEqual(['aa']);
  });

  it('answers true to exactly one of two controllers deleting the same sessions at once', async () => {
    const [a, b] = [
      new PgPostureRepository(new PgDatabase(pool())),
      new PgPostureRepository(new PgDatabase(pool())),
    ];
    for (let round = 0; round < 20; round++) {
      const id = `race-${randomUUID()}`;
      await a.sessions.create(edgeSession({ id, identityId: 'race' }));
      const answers = await Promise.all([a.sessions.delete(id), b.sessions.delete(id)]);
      expect(answers.filter(Boolean)).toHaveLength(1);
    }
    const ids = Array.from({ length: 40 }, (_, n) => `many-${n}`);
    for (const id of ids) await a.sessions.create(edgeSession({ id, identityId: 'race' }));
    const [fromA, fromB] = await Promise.all([
      a.sessions.deleteMany(ids),
      b.sessions.deleteMany([...ids].reverse()),
    ]);
    expect([...fromA, ...fromB].sort()).toEqual([...ids].sort());
  });
});
