/**
 * What the SQLite store keeps in memory (API sessions by token hash, identities, posture data, whole
 * catalogue lists, the policies selecting a role list, the access catalogue) must read exactly like the
 * database: after every write, after a rolled-back transaction or savepoint, and whatever a caller does to the
 * objects it was handed. Plain reads and writes are the repositories' own behaviour and run synchronously
 * (`store.sync`); rollbacks are `SqliteStore.transaction`'s (it forgets the caches), so those run through the
 * store's asynchronous face.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { SqliteStore } from '../../../controller/store/sqlite-store.js';
import { catalogueOf } from '../../../controller/catalogue/catalogue.js';
import type { ApiSession, EdgeRouterPolicy, Identity, ServicePolicy } from '../../../controller/model.js';
import { tempDir } from '../../helpers/controller.js';

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});
function open(): SqliteStore {
  const dir = tempDir();
  dirs.push(dir);
  const store = SqliteStore.open(dir);
  stores.push(store);
  return store;
}

const at = (s: number) => new Date(Date.UTC(2026, 0, 2, 3, 4, s));
const session = (id: string, identityId = 'ann'): ApiSession => ({
  id,
  identityId,
  authenticatorId: 'auth-1',
  ipAddress: '127.0.0.1',
  configTypes: [],
  envInfo: { os: 'linux' },
  sdkInfo: { type: 'postern' },
  isMfaRequired: true,
  isMfaComplete: false,
  createdAt: at(0),
  updatedAt: at(0),
  lastActivityAt: at(0),
});
const identity = (id: string, disabled = false): Identity => ({
  id,
  name: `name-${id}`,
  type: 'User',
  isAdmin: false,
  isDefaultAdmin: false,
  roleAttributes: ['sales'],
  authPolicyId: 'default',
  externalId: null,
  disabled,
  tags: {},
  createdAt: at(0),
  updatedAt: at(0),
});
const policy = (id: string, identityRoles: string[]): ServicePolicy => ({
  id,
  name: `p-${id}`,
  type: 'Dial',
  semantic: 'AnyOf',
  identityRoles,
  serviceRoles: ['#all'],
  postureCheckRoles: [],
  tags: {},
  createdAt: at(0),
  updatedAt: at(0),
});
const routerPolicy = (id: string, name: string): EdgeRouterPolicy => ({
  id,
  name,
  semantic: 'AnyOf',
  edgeRouterRoles: ['#all'],
  identityRoles: ['#all'],
  tags: {},
  createdAt: at(0),
  updatedAt: at(0),
});
/** Runs `fn` in a transaction that then throws: everything it wrote is rolled back. */
const rollback = (store: SqliteStore, fn: () => Promise<void>) =>
  expect(
    store.transaction(async () => {
      await fn();
      throw new Error('roll back');
    }),
  ).rejects.toThrow('roll back');
/** The same inside an outer transaction that commits: only the nested one (a savepoint) is rolled back. */
const rollbackSavepoint = (store: SqliteStore, fn: () => Promise<void>) =>
  store.transaction(() => rollback(store, fn));

describe('API sessions by token hash', () => {
  it('reads every write at once: update, touch, delete and the idle sweep', () => {
    const { apiSessions } = open().sync;
    apiSessions.create(session('s1'), 'hash-1');
    apiSessions.create(session('s2'), 'hash-2');
    expect(apiSessions.getByTokenHash('hash-1')?.isMfaComplete).toBe(false);
    apiSessions.update({ ...session('s1'), isMfaComplete: true, updatedAt: at(1) });
    expect(apiSessions.getByTokenHash('hash-1')?.isMfaComplete).toBe(true);
    expect(apiSessions.get('s1')?.isMfaComplete).toBe(true);
    apiSessions.touch('s1', at(9));
    expect(apiSessions.getByTokenHash('hash-1')?.lastActivityAt).toEqual(at(9));
    expect(apiSessions.delete('s1')).toBe(true);
    expect(apiSessions.getByTokenHash('hash-1')).toBeUndefined();
    expect(apiSessions.get('s1')).toBeUndefined();

    expect(apiSessions.getByTokenHash('hash-2')).toBeDefined();
    expect(apiSessions.deleteIdleSince(at(5))).toEqual([{ id: 's2', identityId: 'ann' }]);
    expect(apiSessions.getByTokenHash('hash-2')).toBeUndefined();
  });

  it.each([
    ['transaction', rollback],
    ['savepoint', rollbackSavepoint],
  ])('forgets what a rolled-back %s read or wrote', async (_, rollingBack) => {
    const store = open();
    await store.apiSessions.create(session('s1'), 'hash-1');
    await rollingBack(store, async () => {
      await store.apiSessions.touch('s1', at(9));
      expect((await store.apiSessions.getByTokenHash('hash-1'))?.lastActivityAt).toEqual(at(9));
    });
    expect((await store.apiSessions.getByTokenHash('hash-1'))?.lastActivityAt).toEqual(at(0));
  });

  it('hands out copies: setting a field of one changes nothing stored', () => {
    const { apiSessions } = open().sync;
    apiSessions.create(session('s1'), 'hash-1');
    const read = apiSessions.getByTokenHash('hash-1')!;
    // What callers do (a TOTP pass, a request's activity); nobody changes a date or the info objects in place.
    read.isMfaComplete = true;
    read.lastActivityAt = at(30);
    read.envInfo = { os: 'changed' };
    expect(apiSessions.getByTokenHash('hash-1')).toEqual(session('s1'));
  });
});

describe('identities', () => {
  it.each([
    ['transaction', rollback],
    ['savepoint', rollbackSavepoint],
  ])('reads an update, a delete and a rolled-back %s at once', async (_, rollingBack) => {
    const store = open();
    await store.identities.create(identity('ann'));
    expect((await store.identities.get('ann'))?.disabled).toBe(false);
    await store.identities.update(identity('ann', true));
    expect((await store.identities.get('ann'))?.disabled).toBe(true);
    await rollingBack(store, async () => {
      await store.identities.update(identity('ann', false));
      expect((await store.identities.get('ann'))?.disabled).toBe(false);
    });
    expect((await store.identities.get('ann'))?.disabled).toBe(true);
    await store.identities.delete('ann');
    expect(await store.identities.get('ann')).toBeUndefined();
  });
});

describe('posture data', () => {
  const os = (version: string, s: number) => ({
    postureCheckId: 'os-check',
    lastUpdatedAt: at(s),
    type: 'Linux',
    version,
    build: null,
  });
  const processReport = (path: string, s: number, postureCheckId = 'proc') => ({
    postureCheckId,
    lastUpdatedAt: at(s),
    path,
    isRunning: s % 2 === 0,
    hash: `h${s}`,
    signerFingerprints: [`f${s}`],
  });

  it('loads every write at once, each kind and each API session change', () => {
    const store = open();
    const data = store.sync.posture.data;
    store.sync.apiSessions.create(session('s1'), 'hash-1');
    expect(data.load('ann').os).toBeNull();
    data.setOs('ann', os('6.1', 1));
    expect(data.load('ann').os).toMatchObject({ version: '6.1', lastUpdatedAt: at(1) });
    data.setOs('ann', os('6.1', 2));
    expect(data.load('ann').os?.lastUpdatedAt, 'an unchanged value reported again').toEqual(at(2));
    data.setOs('ann', { ...os('7.0', 3), postureCheckId: 'os-2', build: '42' });
    expect(data.load('ann').os).toEqual({ ...os('7.0', 3), postureCheckId: 'os-2', build: '42' });
    data.setMac('ann', { postureCheckId: 'mac', lastUpdatedAt: at(3), addresses: ['aabbccddeeff'] });
    data.setDomain('ann', { postureCheckId: 'dom', lastUpdatedAt: at(3), domain: 'CORP' });
    const proc = {
      postureCheckId: 'proc',
      lastUpdatedAt: at(3),
      path: '/bin/av',
      isRunning: true,
      hash: 'ab',
      signerFingerprints: [],
    };
    data.setProcess('ann', proc);
    expect(data.load('ann')).toMatchObject({
      mac: { addresses: ['aabbccddeeff'] },
      domain: { domain: 'CORP' },
    });
    expect(data.load('ann').processes).toEqual([proc]);
    const stopped = {
      ...proc,
      isRunning: false,
      hash: 'cd',
      signerFingerprints: ['ef'],
      lastUpdatedAt: at(4),
    };
    data.setProcess('ann', stopped);
    expect(data.load('ann').processes).toEqual([stopped]);
    data.deleteProcess('ann', '/bin/av');
    expect(data.load('ann').processes).toEqual([]);

    data.updateApiSession('s1', 'ann', {});
    expect(data.load('ann').apiSessions.s1).toMatchObject({ mfaPassedAt: null });
    data.updateApiSession('s1', 'ann', { mfaPassedAt: at(4) });
    expect(data.load('ann').apiSessions.s1?.mfaPassedAt).toEqual(at(4));
    data.updateApiSession('s1', 'ann', {});
    expect(data.load('ann').apiSessions.s1?.mfaPassedAt).toEqual(at(4));
    data.clearMfa('ann');
    expect(data.load('ann').apiSessions.s1?.mfaPassedAt).toBeNull();
    data.deleteApiSession('s1');
    expect(data.load('ann').apiSessions).toEqual({});
    // No API session `s2` exists: its row is never written.
    data.updateApiSession('s2', 'ann', {});
    expect(data.load('ann').apiSessions).toEqual({});
    expect(data.deleteOrphans()).toBe(0);
    data.deleteIdentity('ann');
    expect(data.load('ann').os).toBeNull();
  });

  it('what a write leaves in memory is exactly what the database gives back', () => {
    const store = open();
    const data = store.sync.posture.data;
    const fresh = () => {
      data.clearCache();
      return data.load('ann');
    };
    data.setOs('ann', os('6.1', 1));
    data.setProcess('ann', processReport('/b', 1));
    data.setProcess('ann', processReport('/a', 1));
    data.updateApiSession('s1', 'ann', { mfaPassedAt: at(1) });
    const writes: (() => void)[] = [
      () => data.setOs('ann', os('6.1', 2)),
      () => data.setOs('ann', { ...os('7.0', 3), build: '9' }),
      () => data.setMac('ann', { postureCheckId: 'mac', lastUpdatedAt: at(4), addresses: ['aa', 'bb'] }),
      () => data.setDomain('ann', { postureCheckId: 'dom', lastUpdatedAt: at(5), domain: 'CORP\ud800' }),
      () => data.setDomain('ann', { postureCheckId: 'dom\ud800', lastUpdatedAt: at(6), domain: 'CORP' }),
      () => data.setProcess('ann', processReport('/b', 7)),
      () => data.setProcess('ann', processReport('/c', 8)),
      () => data.setProcess('ann', processReport('/B', 9)),
      () => data.setProcess('ann', processReport('/a', 10, 'other\udc00')),
      () => data.deleteProcess('ann', '/b'),
    ];
    for (const write of writes) {
      data.load('ann');
      write();
      expect(data.load('ann')).toEqual(fresh());
    }
    expect(data.load('ann').processes.map((p) => p.path)).toEqual(['/B', '/a', '/c']);
  });

  it.each([
    ['transaction', rollback],
    ['savepoint', rollbackSavepoint],
  ])('forgets a rolled-back %s and never changes what a caller holds', async (_, rollingBack) => {
    const store = open();
    const data = store.posture.data;
    await store.apiSessions.create(session('s1'), 'hash-1');
    await data.setOs('ann', os('6.1', 1));
    await data.updateApiSession('s1', 'ann', { mfaPassedAt: at(1) });
    expect((await data.load('ann')).os?.version).toBe('6.1');
    await rollingBack(store, async () => {
      await data.setOs('ann', os('7.0', 2));
      expect((await data.load('ann')).os?.version).toBe('7.0');
    });
    expect((await data.load('ann')).os?.version).toBe('6.1');

    // What a caller holds is the cache's own object, read-only by its type: a write after it builds a new
    // one, so the caller's snapshot stays as loaded (the report route compares against it after writing).
    const loaded = await data.load('ann');
    await data.setOs('ann', os('7.1', 3));
    await data.setProcess('ann', processReport('/x', 4));
    await data.refreshReported('ann', [{ kind: 'os' }], at(5));
    await data.updateApiSession('s1', 'ann', { mfaPassedAt: at(6) });
    expect(loaded).toMatchObject({
      os: { version: '6.1', lastUpdatedAt: at(1) },
      processes: [],
      apiSessions: { s1: { mfaPassedAt: at(1) } },
    });
    expect(await data.load('ann')).toMatchObject({
      os: { version: '7.1', lastUpdatedAt: at(5) },
      processes: [{ path: '/x' }],
      apiSessions: { s1: { mfaPassedAt: at(6) } },
    });
    await data.setOs('ann', os('6.1', 1));
    await data.deleteProcess('ann', '/x');
    await data.updateApiSession('s1', 'ann', { mfaPassedAt: at(1) });
    expect(await data.load('ann')).toMatchObject({
      apiSessions: { s1: { mfaPassedAt: at(1) } },
    });
  });
});

describe('posture facts reported again unchanged', () => {
  const os = { postureCheckId: 'os-check', type: 'Linux', version: '6.1', build: null };
  const stored = (store: SqliteStore) =>
    store.db
      .prepare(`SELECT updated_at FROM posture_facts WHERE identity_id = 'ann' AND kind = 'os'`)
      .pluck()
      .get();

  it('keeps the exact time in memory and writes it at most once a minute', () => {
    const store = open();
    const data = store.sync.posture.data;
    data.setOs('ann', { ...os, lastUpdatedAt: at(0) });
    data.load('ann');
    data.refreshReported('ann', [{ kind: 'os' }], at(30));
    expect(data.load('ann').os?.lastUpdatedAt, 'in memory').toEqual(at(30));
    expect(stored(store), 'half a minute after the write').toBe(at(0).toISOString());
    data.refreshReported('ann', [{ kind: 'os' }], new Date(at(30).getTime() + 999));
    expect(data.load('ann').os?.lastUpdatedAt, 'within the second').toEqual(at(30));
    data.refreshReported('ann', [{ kind: 'os' }], at(59));
    expect(data.load('ann').os?.lastUpdatedAt).toEqual(at(59));
    expect(stored(store)).toBe(at(0).toISOString());
    data.refreshReported('ann', [{ kind: 'os' }], at(60));
    expect(stored(store), 'a minute after the write').toBe(at(60).toISOString());
    data.refreshReported('ann', [{ kind: 'os' }], at(90));
    expect(stored(store)).toBe(at(60).toISOString());
    // A changed fact is written at once and starts the minute again.
    data.setOs('ann', { ...os, version: '6.2', lastUpdatedAt: at(100) });
    data.refreshReported('ann', [{ kind: 'os' }], at(130));
    expect(stored(store)).toBe(at(100).toISOString());
    expect(data.load('ann').os).toMatchObject({ version: '6.2', lastUpdatedAt: at(130) });
    // What the database holds is what a restart (or an evicted entry) reads back.
    data.clearCache();
    expect(data.load('ann').os?.lastUpdatedAt).toEqual(at(100));
  });

  it('writes at once when the identity is not in memory', () => {
    const store = open();
    const data = store.sync.posture.data;
    data.setOs('ann', { ...os, lastUpdatedAt: at(0) });
    data.clearCache();
    data.refreshReported('ann', [{ kind: 'os' }], at(5));
    expect(stored(store)).toBe(at(5).toISOString());
  });
});

describe('edge sessions found', () => {
  const edgeSession = (id: string, apiSessionId = 'api-1') => ({
    id,
    tokenHash: `hash-${id}`,
    identityId: 'ann',
    apiSessionId,
    serviceId: 'svc',
    type: 'Dial' as const,
    createdAt: at(0),
    updatedAt: at(0),
  });

  it('forgets a session once any delete ran, and after a rollback', async () => {
    const store = open();
    const sessions = store.sync.posture.sessions;
    store.sync.apiSessions.create(session('api-1'), 'hash-1');
    for (const [create, remove] of [
      [() => sessions.create(edgeSession('e1')), () => sessions.delete('e1')],
      [() => sessions.create(edgeSession('e1')), () => sessions.deleteMany(['e1'])],
      [() => sessions.create(edgeSession('e1')), () => sessions.deleteByApiSession('api-1')],
      [() => sessions.create(edgeSession('e1')), () => sessions.deleteByIdentity('ann')],
    ] as const) {
      create();
      expect(sessions.find('api-1', 'svc', 'Dial')?.id).toBe('e1');
      remove();
      expect(sessions.find('api-1', 'svc', 'Dial')).toBeUndefined();
    }
    await rollback(store, async () => {
      await store.posture.sessions.create(edgeSession('e2'));
      expect((await store.posture.sessions.find('api-1', 'svc', 'Dial'))?.id).toBe('e2');
    });
    expect(sessions.find('api-1', 'svc', 'Dial')).toBeUndefined();
    sessions.create(edgeSession('e3'));
    const found = sessions.find('api-1', 'svc', 'Dial')!;
    found.serviceId = 'changed';
    expect(sessions.find('api-1', 'svc', 'Dial')?.serviceId, 'callers get copies').toBe('svc');
  });
});

describe('catalogue lists and policy selection', () => {
  const all = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };
  // Only the policies made here (a migration may have made others).
  const names = async (store: SqliteStore) =>
    (await store.edgeRouterPolicies.list(all)).items
      .filter((p) => ['1', '2', '3'].includes(p.id))
      .map((p) => p.name);

  it.each([
    ['transaction', rollback],
    ['savepoint', rollbackSavepoint],
  ])(
    'a whole-table list follows every write and a rolled-back %s, and callers may sort what they get',
    async (_, rollingBack) => {
      const store = open();
      const repo = store.edgeRouterPolicies;
      await repo.create(routerPolicy('1', 'b'));
      await repo.create(routerPolicy('2', 'a'));
      expect(await names(store)).toEqual(['a', 'b']);
      (await repo.list(all)).items.reverse();
      expect(await names(store)).toEqual(['a', 'b']);
      const whole = await repo.list(all);
      expect(await repo.list({ limit: 1, offset: 1 })).toEqual({
        items: [whole.items[1]],
        totalCount: whole.totalCount,
      });
      await repo.create(routerPolicy('3', 'c'));
      expect(await names(store)).toEqual(['a', 'b', 'c']);
      await repo.update({ ...routerPolicy('3', '0'), updatedAt: at(1) });
      expect(await names(store)).toEqual(['0', 'a', 'b']);
      await repo.delete('2');
      expect(await names(store)).toEqual(['0', 'b']);
      await rollingBack(store, async () => {
        await repo.delete('1');
        expect(await names(store)).toEqual(['0']);
      });
      expect(await names(store)).toEqual(['0', 'b']);
    },
  );

  it.each([
    ['transaction', rollback],
    ['savepoint', rollbackSavepoint],
  ])(
    'the policies selecting a role list follow every policy write and a rolled-back %s, the access catalogue too',
    async (_, rollingBack) => {
      const store = open();
      const roles = ['#sales', '@ann'];
      const ids = async () =>
        (await store.servicePolicies.selecting('identity', roles)).map((p) => p.id).sort();
      // What access decisions read: the in-memory catalogue, rebuilt when the store says it may have changed.
      const catalogued = async () =>
        (await catalogueOf(store))
          .selecting('identity', roles)
          .map((p) => p.id)
          .sort();
      await store.servicePolicies.create(policy('1', ['#sales']));
      expect(await ids()).toEqual(['1']);
      expect(await catalogued()).toEqual(['1']);
      await store.servicePolicies.create(policy('2', ['@ann']));
      expect(await ids()).toEqual(['1', '2']);
      expect(await catalogued()).toEqual(['1', '2']);
      await store.servicePolicies.update({ ...policy('1', ['#marketing']), updatedAt: at(1) });
      expect(await ids()).toEqual(['2']);
      expect(await catalogued()).toEqual(['2']);
      await rollingBack(store, async () => {
        await store.servicePolicies.delete('2');
        expect(await ids()).toEqual([]);
        expect(await catalogued()).toEqual([]);
      });
      expect(await ids()).toEqual(['2']);
      expect(await catalogued()).toEqual(['2']);
      await store.servicePolicies.delete('2');
      expect(await ids()).toEqual([]);
      expect(await catalogued()).toEqual([]);
    },
  );
});
