import { afterEach, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { openDatabase } from '../../../controller/store/database.js';
import { MIGRATIONS } from '../../../controller/store/migrations.js';
import { SqliteStore } from '../../../controller/store/sqlite-store.js';
import { UniqueViolation } from '../../../controller/store/repository.js';
import type { ServicePolicy } from '../../../controller/model.js';
import { tempDir } from '../../helpers/controller.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function open() {
  const dir = tempDir();
  dirs.push(dir);
  return { dir, store: SqliteStore.open(dir) };
}
const now = new Date('2026-01-02T03:04:05.000Z');
const policy = (id: string, identityRoles: string[]): ServicePolicy => ({
  id,
  name: `p-${id}`,
  type: 'Dial',
  semantic: 'AnyOf',
  identityRoles,
  serviceRoles: ['#all'],
  postureCheckRoles: [],
  tags: {},
  createdAt: now,
  updatedAt: now,
});

describe('SQLite store', () => {
  it('opens in WAL mode with every migration applied once, and reopening applies none again', async () => {
    const { dir, store } = open();
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    await store.close();
    const again = openDatabase(dir);
    expect(again.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(
      (again.prepare(`SELECT COUNT(*) AS n FROM auth_policies WHERE id = 'default'`).get() as { n: number })
        .n,
    ).toBe(1);
    again.close();
  });

  it('finds policies by the roles they select through the index, and keeps it in step with updates and deletes', async () => {
    const { store } = open();
    const { servicePolicies } = store.sync;
    servicePolicies.create(policy('1', ['#sales']));
    servicePolicies.create(policy('2', ['#support', '@ann']));
    servicePolicies.create(policy('3', ['#all']));
    const ids = (roles: string[]) =>
      servicePolicies
        .selecting('identity', roles)
        .map((p) => p.id)
        .sort();
    expect(ids(['#sales', '#all'])).toEqual(['1', '3']);
    expect(ids(['@ann'])).toEqual(['2']);
    servicePolicies.update({ ...policy('1', ['#marketing']), updatedAt: new Date() });
    expect(ids(['#sales'])).toEqual([]);
    expect(ids(['#marketing'])).toEqual(['1']);
    servicePolicies.delete('2');
    expect(ids(['@ann', '#support'])).toEqual([]);
    await store.close();
  });

  it('indexes role attributes and enforces unique names', async () => {
    const { store } = open();
    const { identities } = store.sync;
    const identity = (id: string, name: string, roleAttributes: string[]) => ({
      id,
      name,
      type: 'User' as const,
      isAdmin: false,
      isDefaultAdmin: false,
      roleAttributes,
      authPolicyId: 'default',
      externalId: null,
      disabled: false,
      tags: {},
      createdAt: now,
      updatedAt: now,
    });
    identities.create(identity('a', 'ann', ['sales', 'emea']));
    identities.create(identity('b', 'ben', ['support']));
    expect(identities.idsWithAnyAttribute(['emea', 'support']).sort()).toEqual(['a', 'b']);
    expect(identities.attributes()).toEqual(['emea', 'sales', 'support']);
    expect(() => identities.create(identity('c', 'ann', []))).toThrow(UniqueViolation);
    // The store's asynchronous face rejects alike.
    await expect(store.identities.create(identity('c', 'ann', []))).rejects.toThrow(UniqueViolation);
    expect(identities.get('c')).toBeUndefined();
    expect(identities.get('a')?.createdAt).toEqual(now);
    await store.close();
  });
});
