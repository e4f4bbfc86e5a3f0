/**
 * What the SQLite store keeps in memory (API sessions by token hash, identities, posture data, whole
 * catalogue lists, the policies selecting a role list) must read exactly like the database: after every
 * write, after a rolled-back transaction, and whatever a caller does to the objects it was handed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { SqliteStore } from '../../../controller/store/sqlite-store.js';
import type { ApiSession, EdgeRouterPolicy, Identity, ServicePolicy } from '../../../controller/model.js';
import { tempDir } from '../../helpers/controller.js';

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(() => {
  stores.splice(0).forEach((s) => s.close());
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
const rollback = (store: SqliteStore, fn: () => void) =>
  expect(() =>
    store.transaction(() => {
      fn();
      throw new Error('roll back');
    }),
  ).toThrow('roll back');

describe('API sessions by token hash', () => {
  it('reads every write at once: update, touch, delete and the idle sweep', () => {
    const store = open();
    store.apiSessions.create(session('s1'), 'hash-1');
    store.apiSessions.create(session('s2'), 'hash-2');
    expect(store.apiSessions.getByTokenHash('hash-1')?.isMfaComplete).toBe(false);
    store.apiSessions.update({ ...session('s1'), isMfaComplete: true, updatedAt: at(1) });
    expect(store.apiSessions.getByTokenHash('hash-1')?.isMfaComplete).toBe(true);
    expect(store.apiSessions.get('s1')?.isMfaComplete).toBe(true);
    store.apiSessions.touch('s1', at(9));
    expect(store.apiSessions.getByTokenHash('hash-1')?.lastActivityAt).toEqual(at(9));
    expect(store.apiSessions.delete('s1')).toBe(true);
    expect(store.apiSessions.getByTokenHash('hash-1')).toBeUndefined();
    expect(store.apiSessions.get('s1')).toBeUndefined();

    expect(store.apiSessions.getByTokenHash('hash-2')).toBeDefined();
    expect(store.apiSessions.deleteIdleSince(at(5))).toEqual([{ id: 's2', identityId: 'ann' }]);
    expect(store.apiSessions.getByTokenHash('hash-2')).toBeUndefined();
  });

  it('forgets what a rolled-back transaction read or wrote', () => {
    const store = open();
    store.apiSessions.create(session('s1'), 'hash-1');
    rollback(store, () => {
      store.apiSessions.touch('s1', at(9));
      expect(store.apiSessions.getByTokenHash('hash-1')?.lastActivityAt).toEqual(at(9));
    });
    expect(store.apiSessions.getByTokenHash('hash-1')?.lastActivityAt).toEqual(at(0));
  });

  it('hands out copies: changing one changes nothing stored', () => {
    const store = open();
    store.apiSessions.create(session('s1'), 'hash-1');
    const read = store.apiSessions.getByTokenHash('hash-1')!;
    read.isMfaComplete = true;
    read.lastActivityAt.setTime(0);
    read.envInfo.os = 'changed';
    expect(store.apiSessions.getByTokenHash('hash-1')).toEqual(session('s1'));
  });
});

describe('identities', () => {
  it('reads an update, a delete and a rollback at once', () => {
    const store = open();
    store.identities.create(identity('ann'));
    expect(store.identities.get('ann')?.disabled).toBe(false);
    store.identities.update(identity('ann', true));
    expect(store.identities.get('ann')?.disabled).toBe(true);
    rollback(store, () => {
      store.identities.update(identity('ann', false));
      expect(store.identities.get('ann')?.disabled).toBe(false);
    });
    expect(store.identities.get('ann')?.disabled).toBe(true);
    store.identities.delete('ann');
    expect(store.identities.get('ann')).toBeUndefined();
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

  it('loads every write at once, each kind and each API session change', () => {
    const store = open();
    const data = store.posture.data;
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
    data.updateApiSession('s2', 'ann', {});
    expect(data.deleteOrphans(() => false)).toBe(1);
    expect(data.load('ann').apiSessions).toEqual({});
    data.deleteIdentity('ann');
    expect(data.load('ann').os).toBeNull();
  });

  it('what a write leaves in memory is exactly what the database gives back', () => {
    const store = open();
    const data = store.posture.data;
    const fresh = () => {
      data.clearCache();
      return data.load('ann');
    };
    const proc = (path: string, s: number, postureCheckId = 'proc') => ({
      postureCheckId,
      lastUpdatedAt: at(s),
      path,
      isRunning: s % 2 === 0,
      hash: `h${s}`,
      signerFingerprints: [`f${s}`],
    });
    data.setOs('ann', os('6.1', 1));
    data.setProcess('ann', proc('/b', 1));
    data.setProcess('ann', proc('/a', 1));
    data.updateApiSession('s1', 'ann', { mfaPassedAt: at(1) });
    const writes: (() => void)[] = [
      () => data.setOs('ann', os('6.1', 2)),
      () => data.setOs('ann', { ...os('7.0', 3), build: '9' }),
      () => data.setMac('ann', { postureCheckId: 'mac', lastUpdatedAt: at(4), addresses: ['aa', 'bb'] }),
      () => data.setDomain('ann', { postureCheckId: 'dom', lastUpdatedAt: at(5), domain: 'CORP\ud800' }),
      () => data.setDomain('ann', { postureCheckId: 'dom\ud800', lastUpdatedAt: at(6), domain: 'CORP' }),
      () => data.setProcess('ann', proc('/b', 7)),
      () => data.setProcess('ann', proc('/c', 8)),
      () => data.setProcess('ann', proc('/B', 9)),
      () => data.setProcess('ann', proc('/a', 10, 'other\udc00')),
      () => data.deleteProcess('ann', '/b'),
    ];
    for (const write of writes) {
      data.load('ann');
      write();
      expect(data.load('ann')).toEqual(fresh());
    }
    expect(data.load('ann').processes.map((p) => p.path)).toEqual(['/B', '/a', '/c']);
  });

  it('forgets a rolled-back write and hands out copies', () => {
    const store = open();
    const data = store.posture.data;
    data.setOs('ann', os('6.1', 1));
    data.updateApiSession('s1', 'ann', { mfaPassedAt: at(1) });
    expect(data.load('ann').os?.version).toBe('6.1');
    rollback(store, () => {
      data.setOs('ann', os('7.0', 2));
      expect(data.load('ann').os?.version).toBe('7.0');
    });
    expect(data.load('ann').os?.version).toBe('6.1');

    const loaded = data.load('ann');
    loaded.os!.version = 'changed';
    loaded.os!.lastUpdatedAt.setTime(0);
    loaded.apiSessions.s1!.mfaPassedAt!.setTime(0);
    loaded.processes.push({ ...loaded.processes[0]!, path: '/x' });
    expect(data.load('ann')).toMatchObject({
      os: { version: '6.1', lastUpdatedAt: at(1) },
      processes: [],
      apiSessions: { s1: { mfaPassedAt: at(1) } },
    });
  });
});

describe('catalogue lists and policy selection', () => {
  const all = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };
  // Only the policies made here (a migration may have made others).
  const names = (store: SqliteStore) =>
    store.edgeRouterPolicies
      .list(all)
      .items.filter((p) => ['1', '2', '3'].includes(p.id))
      .map((p) => p.name);

  it('a whole-table list follows every write and a rollback, and callers may sort what they get', () => {
    const store = open();
    store.edgeRouterPolicies.create(routerPolicy('1', 'b'));
    store.edgeRouterPolicies.create(routerPolicy('2', 'a'));
    expect(names(store)).toEqual(['a', 'b']);
    store.edgeRouterPolicies.list(all).items.reverse();
    expect(names(store)).toEqual(['a', 'b']);
    const whole = store.edgeRouterPolicies.list(all);
    expect(store.edgeRouterPolicies.list({ limit: 1, offset: 1 })).toEqual({
      items: [whole.items[1]],
      totalCount: whole.totalCount,
    });
    store.edgeRouterPolicies.create(routerPolicy('3', 'c'));
    expect(names(store)).toEqual(['a', 'b', 'c']);
    store.edgeRouterPolicies.update({ ...routerPolicy('3', '0'), updatedAt: at(1) });
    expect(names(store)).toEqual(['0', 'a', 'b']);
    store.edgeRouterPolicies.delete('2');
    expect(names(store)).toEqual(['0', 'b']);
    rollback(store, () => {
      store.edgeRouterPolicies.delete('1');
      expect(names(store)).toEqual(['0']);
    });
    expect(names(store)).toEqual(['0', 'b']);
  });

  it('the policies selecting a role list follow every policy write and a rollback', () => {
    const store = open();
    const ids = () =>
      store.servicePolicies
        .selecting('identity', ['#sales', '@ann'])
        .map((p) => p.id)
        .sort();
    store.servicePolicies.create(policy('1', ['#sales']));
    expect(ids()).toEqual(['1']);
    store.servicePolicies.create(policy('2', ['@ann']));
    expect(ids()).toEqual(['1', '2']);
    store.servicePolicies.update({ ...policy('1', ['#marketing']), updatedAt: at(1) });
    expect(ids()).toEqual(['2']);
    rollback(store, () => {
      store.servicePolicies.delete('2');
      expect(ids()).toEqual([]);
    });
    expect(ids()).toEqual(['2']);
    store.servicePolicies.delete('2');
    expect(ids()).toEqual([]);
  });
});
