/**
 * The document repositories, written once (store/repositories/document-queries.ts, service-policy-queries.ts,
 * identity-queries.ts), give the same answers on both databases: the same scenarios run against SQLite's store,
 * against PostgreSQL without memory and against PostgreSQL with the store's caches (cross-instance rules), with
 * the same expected results. Then what only PostgreSQL has: controllers racing on one database, and the identity sort
 * indexes serving the very page query the repository runs.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../controller/api-error.js';
import type { Entity, Identity, Service, ServicePolicy } from '../../controller/model.js';
import { asyncFacade } from '../../controller/store/async.js';
import { openDatabase } from '../../controller/store/database.js';
import { ENTITY_KINDS, type EntityKind } from '../../controller/store/entity-kinds.js';
import { DocumentQueries } from '../../controller/store/repositories/document-queries.js';
import { IdentityQueries } from '../../controller/store/repositories/identity-queries.js';
import { ServicePolicyQueries } from '../../controller/store/repositories/service-policy-queries.js';
import { POSTGRES, SQLITE } from '../../controller/store/sql/dialect.js';
import { postgresFace, sqliteFace } from '../../controller/store/sql/faces.js';
import { PgStore } from '../../controller/store/postgres/pg-store.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import { toPostgresPlaceholders } from '../../controller/store/postgres/sql.js';
import {
  UniqueViolation,
  type AttributedRepository,
  type ListQuery,
  type Page,
  type ServicePolicyRepository,
} from '../../controller/store/repository.js';
import { SqliteStore } from '../../controller/store/sqlite-store.js';
import { tempDir } from '../helpers/controller.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

/** An entity kind whose reviver turns a date back into a Date (stored in posture_checks' table). */
interface Stamped extends Entity {
  roleAttributes: string[];
  expiresAt: Date | null;
}
const STAMPED: EntityKind<Stamped> = {
  table: 'posture_checks',
  roleKind: 'postureCheck',
  revive: (doc) => ({ expiresAt: typeof doc.expiresAt === 'string' ? new Date(doc.expiresAt) : null }),
};

interface Backend {
  identities: AttributedRepository<Identity>;
  services: AttributedRepository<Service>;
  servicePolicies: ServicePolicyRepository;
  stamped: AttributedRepository<Stamped>;
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  countIdentitiesWithAuthPolicy(authPolicyId: string): Promise<number>;
  close(): Promise<void>;
}

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.stop());

function openSqlite(): Promise<Backend> {
  const dir = tempDir();
  const store = new SqliteStore(openDatabase(dir));
  const stamped = sqliteFace(new DocumentQueries<Stamped>(SQLITE, STAMPED), store.db);
  return Promise.resolve({
    identities: store.identities,
    services: store.services,
    servicePolicies: store.servicePolicies,
    stamped: asyncFacade(stamped, (call) => new Promise((resolve) => resolve(call()))),
    transaction: (fn) => store.transaction(fn),
    countIdentitiesWithAuthPolicy: (id) => store.countIdentitiesWithAuthPolicy(id),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

/** A pool on a fresh, migrated database of the file's server. */
async function openPool(url: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // The server stopping under an idle connection must not fail the run with an unhandled error.
  pool.on('error', () => undefined);
  await migratePostgres(pool);
  return pool;
}

function pgDocuments<T extends Entity & { roleAttributes?: string[] }>(db: PgDatabase, kind: EntityKind<T>) {
  return postgresFace(new DocumentQueries<T>(POSTGRES, kind), db);
}

async function openPostgres(): Promise<Backend> {
  const db = new PgDatabase(await openPool(await server.createDatabase()));
  return {
    identities: pgDocuments<Identity>(db, ENTITY_KINDS.identities),
    services: pgDocuments<Service>(db, ENTITY_KINDS.services),
    servicePolicies: postgresFace(new ServicePolicyQueries(POSTGRES), db),
    stamped: pgDocuments(db, STAMPED),
    transaction: (fn) => db.transaction(fn),
    countIdentitiesWithAuthPolicy: (id) =>
      postgresFace(new IdentityQueries(POSTGRES), db).countWithAuthPolicy(id),
    close: () => db.close(),
  };
}

/**
 * The PostgreSQL store's own repositories, identities and the catalogue's kinds kept in memory. Its caches
 * answer only while announcements can be heard: here as if the access outbox's listener had just connected.
 */
async function openPostgresStore(): Promise<Backend> {
  const store = new PgStore(new PgDatabase(await openPool(await server.createDatabase())));
  store.caches.setListening(true);
  return {
    identities: store.identities,
    services: store.services,
    servicePolicies: store.servicePolicies,
    stamped: pgDocuments(store.db, STAMPED),
    transaction: (fn) => store.transaction(fn),
    countIdentitiesWithAuthPolicy: (id) => store.countIdentitiesWithAuthPolicy(id),
    close: () => store.db.close(),
  };
}

const JAN_1 = new Date('2024-01-01T10:20:30.123Z');

const identity = (id: string, name: string, fields: Partial<Identity> = {}): Identity => ({
  id,
  name,
  type: 'User',
  isAdmin: false,
  isDefaultAdmin: false,
  roleAttributes: [],
  authPolicyId: 'default',
  externalId: null,
  disabled: false,
  tags: {},
  createdAt: JAN_1,
  updatedAt: JAN_1,
  ...fields,
});

/** Upper and lower case and an accent (bytewise order: 'Bob' < 'alice' < 'Émile'), a tie on createdAt. */
const IDENTITIES: Identity[] = [
  identity('i1', 'alice', {
    isAdmin: true,
    roleAttributes: ['sales', 'eu'],
    externalId: 'ext-1',
    tags: { zeta: 1, alpha: { nested: [1, 'two', null, true] } },
  }),
  identity('i2', 'Bob', {
    type: 'Device',
    roleAttributes: ['sales'],
    createdAt: new Date('2024-01-03T00:00:00.000Z'),
  }),
  identity('i3', 'carol', { disabled: true, createdAt: new Date('2024-01-02T00:00:00.000Z') }),
  identity('i4', 'Émile', {
    type: 'Service',
    roleAttributes: ['eu', 'ops'],
    createdAt: new Date('2024-01-02T00:00:00.000Z'),
  }),
  identity('i5', 'dave', {
    type: 'Router',
    roleAttributes: ['ops'],
    authPolicyId: 'ap-strict',
    createdAt: new Date('2023-12-31T23:59:59.999Z'),
  }),
];

const service = (id: string, name: string, fields: Partial<Service> = {}): Service => ({
  id,
  name,
  roleAttributes: [],
  configs: [],
  encryptionRequired: false,
  terminatorStrategy: 'smartrouting',
  maxIdleTimeMillis: 0,
  tags: {},
  createdAt: JAN_1,
  updatedAt: JAN_1,
  ...fields,
});

const policy = (id: string, name: string, fields: Partial<ServicePolicy>): ServicePolicy => ({
  id,
  name,
  type: 'Dial',
  semantic: 'AnyOf',
  identityRoles: [],
  serviceRoles: [],
  postureCheckRoles: [],
  tags: {},
  createdAt: JAN_1,
  updatedAt: JAN_1,
  ...fields,
});

const POLICIES: ServicePolicy[] = [
  policy('p1', 'dial-sales', { identityRoles: ['#sales'], serviceRoles: ['@s1'] }),
  policy('p2', 'bind-all', {
    type: 'Bind',
    semantic: 'AllOf',
    identityRoles: ['#all'],
    serviceRoles: ['#public'],
    postureCheckRoles: ['#mfa'],
  }),
  policy('p3', 'dial-eu', { identityRoles: ['#eu', '@i2'], serviceRoles: ['#all'] }),
];

/** What a page shows: names in order, the total, and the paging it echoes (only a filtered list echoes it). */
const summary = (page: Page<{ name: string }>) => ({
  names: page.items.map((e) => e.name),
  totalCount: page.totalCount,
  echoed: 'limit' in page || 'offset' in page ? { limit: page.limit, offset: page.offset } : 'none',
});

const ALL = { limit: 10, offset: 0 };

describe.each([
  ['sqlite', openSqlite],
  ['postgres', openPostgres],
  ['postgres, kept in memory', openPostgresStore],
])('document repositories on %s', (_backend, open) => {
  let b: Backend;
  beforeAll(async () => {
    b = await open();
    for (const i of IDENTITIES) await b.identities.create(i);
    for (const p of POLICIES) await b.servicePolicies.create(p);
  });
  afterAll(() => b?.close());

  it('reads back what was written, its times as Dates', async () => {
    for (const i of IDENTITIES) {
      const read = await b.identities.get(i.id);
      expect(read).toStrictEqual(i);
      expect(read!.createdAt).toBeInstanceOf(Date);
    }
    expect(await b.identities.get('missing')).toBeUndefined();
    expect(await b.identities.getByName('Émile')).toStrictEqual(IDENTITIES[3]);
    expect(await b.identities.getByName('emile')).toBeUndefined();
  });

  it('revives what the kind revives: a missing configs list, a date inside the document', async () => {
    const web = service('s1', 'web', {
      roleAttributes: ['public'],
      configs: ['c1'],
      encryptionRequired: true,
    });
    // stored the way a service from before configs looks: no configs key in its document
    const old = { ...service('s2', 'db'), configs: undefined } as unknown as Service;
    await b.services.create(web);
    await b.services.create(old);
    expect(await b.services.get('s1')).toStrictEqual(web);
    expect(await b.services.get('s2')).toStrictEqual(service('s2', 'db'));
    expect(summary(await b.services.list({ ...ALL, filter: 'encryptionRequired' }))).toEqual({
      names: ['web'],
      totalCount: 1,
      echoed: { limit: 10, offset: 0 },
    });
    expect(await b.services.attributes()).toEqual(['public']);

    const expiresAt = new Date('2030-05-06T07:08:09.010Z');
    const check: Stamped = {
      id: 'c1',
      name: 'stamped',
      roleAttributes: ['mfa'],
      expiresAt,
      tags: {},
      createdAt: JAN_1,
      updatedAt: JAN_1,
    };
    await b.stamped.create(check);
    const read = await b.stamped.get('c1');
    expect(read).toStrictEqual(check);
    expect(read!.expiresAt).toBeInstanceOf(Date);
    expect((await b.stamped.getMany(['c1']))[0]!.expiresAt).toBeInstanceOf(Date);
    expect((await b.stamped.list(ALL)).items[0]!.expiresAt).toBeInstanceOf(Date);
    expect(await b.stamped.attributes()).toEqual(['mfa']);
  });

  it('counts', async () => {
    expect(await b.identities.count()).toBe(5);
    expect(await b.countIdentitiesWithAuthPolicy('default')).toBe(4);
    expect(await b.countIdentitiesWithAuthPolicy('ap-strict')).toBe(1);
    expect(await b.countIdentitiesWithAuthPolicy('none')).toBe(0);
  });

  it.each<[string, ListQuery, ReturnType<typeof summary>]>([
    [
      'everything, by name bytewise',
      ALL,
      { names: ['Bob', 'alice', 'carol', 'dave', 'Émile'], totalCount: 5, echoed: 'none' },
    ],
    [
      'everything, as the controller asks for it',
      { limit: Number.MAX_SAFE_INTEGER, offset: 0 },
      { names: ['Bob', 'alice', 'carol', 'dave', 'Émile'], totalCount: 5, echoed: 'none' },
    ],
    ['a page', { limit: 2, offset: 1 }, { names: ['alice', 'carol'], totalCount: 5, echoed: 'none' }],
    ['past the end', { limit: 10, offset: 10 }, { names: [], totalCount: 5, echoed: 'none' }],
    ['an empty page', { limit: 0, offset: 0 }, { names: [], totalCount: 5, echoed: 'none' }],
    ['by exact name', { ...ALL, name: 'carol' }, { names: ['carol'], totalCount: 1, echoed: 'none' }],
    ['by name, no match', { ...ALL, name: 'Carol' }, { names: [], totalCount: 0, echoed: 'none' }],
    [
      'name contains, ASCII case folded',
      { ...ALL, nameContains: 'A' },
      { names: ['alice', 'carol', 'dave'], totalCount: 3, echoed: 'none' },
    ],
    [
      'name contains, only ASCII folded',
      { ...ALL, nameContains: 'é' },
      { names: [], totalCount: 0, echoed: 'none' },
    ],
    [
      'name contains, accent',
      { ...ALL, nameContains: 'É' },
      { names: ['Émile'], totalCount: 1, echoed: 'none' },
    ],
    [
      'name contains, paged',
      { limit: 1, offset: 1, nameContains: 'a' },
      { names: ['carol'], totalCount: 3, echoed: 'none' },
    ],
    [
      'a filter',
      { ...ALL, filter: 'type = "User" sort by name desc' },
      { names: ['carol', 'alice'], totalCount: 2, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'a filter takes over name',
      { ...ALL, name: 'carol', filter: 'isAdmin' },
      { names: ['alice'], totalCount: 1, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'an empty filter',
      { ...ALL, filter: '' },
      { names: ['Bob', 'alice', 'carol', 'dave', 'Émile'], totalCount: 5, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'the filter pages',
      { ...ALL, filter: 'true sort by createdAt desc limit 2 skip 1' },
      { names: ['Émile', 'carol'], totalCount: 5, echoed: { limit: 2, offset: 1 } },
    ],
    [
      'the filter limits, the query skips',
      { limit: 10, offset: 3, filter: 'true limit 2' },
      { names: ['dave', 'Émile'], totalCount: 5, echoed: { limit: 2, offset: 3 } },
    ],
    [
      'at most 500',
      { ...ALL, filter: 'limit 1000' },
      { names: ['Bob', 'alice', 'carol', 'dave', 'Émile'], totalCount: 5, echoed: { limit: 500, offset: 0 } },
    ],
    [
      'filtered, past the end',
      { ...ALL, filter: 'isAdmin skip 5' },
      { names: [], totalCount: 1, echoed: { limit: 10, offset: 5 } },
    ],
    [
      'by createdAt, ties by id',
      { ...ALL, filter: 'sort by createdAt' },
      { names: ['dave', 'alice', 'carol', 'Émile', 'Bob'], totalCount: 5, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'by createdAt desc, ties by id desc',
      { ...ALL, filter: 'sort by createdAt desc' },
      { names: ['Bob', 'Émile', 'carol', 'alice', 'dave'], totalCount: 5, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'by type',
      { ...ALL, filter: 'sort by type' },
      { names: ['Bob', 'dave', 'Émile', 'alice', 'carol'], totalCount: 5, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'by type desc',
      { ...ALL, filter: 'sort by type desc' },
      { names: ['carol', 'alice', 'Émile', 'dave', 'Bob'], totalCount: 5, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'by an attribute',
      { ...ALL, filter: 'anyOf(roleAttributes) = "eu"' },
      { names: ['alice', 'Émile'], totalCount: 2, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'without attributes',
      { ...ALL, filter: 'isEmpty(roleAttributes)' },
      { names: ['carol'], totalCount: 1, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'not disabled',
      { ...ALL, filter: 'not disabled' },
      { names: ['Bob', 'alice', 'dave', 'Émile'], totalCount: 4, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'a null',
      { ...ALL, filter: 'externalId = null' },
      { names: ['Bob', 'carol', 'dave', 'Émile'], totalCount: 4, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'by auth policy',
      { ...ALL, filter: 'authPolicyId = "ap-strict" and not isDefaultAdmin' },
      { names: ['dave'], totalCount: 1, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'icontains',
      { ...ALL, filter: 'name icontains "E"' },
      { names: ['alice', 'dave', 'Émile'], totalCount: 3, echoed: { limit: 10, offset: 0 } },
    ],
    [
      'ids',
      { ...ALL, filter: 'id in ["i3", "i1", "nope"] sort by id desc' },
      { names: ['carol', 'alice'], totalCount: 2, echoed: { limit: 10, offset: 0 } },
    ],
  ])('lists %s', async (_title, query, expected) => {
    expect(summary(await b.identities.list(query))).toEqual(expected);
  });

  it('lists whole entities', async () => {
    expect((await b.identities.list({ ...ALL, filter: 'isAdmin' })).items).toStrictEqual([IDENTITIES[0]]);
    expect((await b.identities.list({ limit: 1, offset: 0 })).items).toStrictEqual([IDENTITIES[1]]);
  });

  it('refuses a filter it cannot compile with the same 400', async () => {
    const error = await b.identities.list({ ...ALL, filter: 'nope = 1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_FILTER' });
    expect((error as ApiError).message).toMatch(
      /unknown field 'nope'; allowed fields: id, name, createdAt, updatedAt, isAdmin, /,
    );
  });

  it('finds by id before name, many in the order asked', async () => {
    // an entity named like another's id: the id wins
    await b.identities.create(identity('x1', 'i1'));
    expect((await b.identities.getByIdOrName('i1'))!.name).toBe('alice');
    expect((await b.identities.getByIdOrName('carol'))!.id).toBe('i3');
    expect(await b.identities.getByIdOrName('missing')).toBeUndefined();
    expect(await b.identities.delete('x1')).toBe(true);

    // in the order asked, an id asked twice answered once: whether none, some or all are in memory
    const asked = ['i4', 'i1', 'missing', 'i2', 'i4'];
    const expected = [IDENTITIES[3], IDENTITIES[0], IDENTITIES[1]];
    expect(await b.identities.getMany(asked)).toStrictEqual(expected);
    await b.identities.get('i2');
    expect(await b.identities.getMany(asked)).toStrictEqual(expected);
    for (const i of IDENTITIES) await b.identities.get(i.id);
    expect(await b.identities.getMany(asked)).toStrictEqual(expected);
    expect(await b.identities.getMany([])).toEqual([]);
  });

  it('indexes role attributes', async () => {
    expect(await b.identities.attributes()).toEqual(['eu', 'ops', 'sales']);
    expect(await b.identities.idsWithAnyAttribute(['ops', 'sales'])).toEqual(['i1', 'i2', 'i4', 'i5']);
    expect(await b.identities.idsWithAnyAttribute(['nobody'])).toEqual([]);
    expect(await b.identities.idsWithAnyAttribute([])).toEqual([]);
    expect(await b.servicePolicies.list(ALL).then(summary)).toEqual({
      names: ['bind-all', 'dial-eu', 'dial-sales'],
      totalCount: 3,
      echoed: 'none',
    });
  });

  it('refuses a taken name on create and update, keeping nothing of the refused write', async () => {
    const refused = await b.identities
      .create(identity('u0', 'alice', { roleAttributes: ['refused'] }))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UniqueViolation);
    expect(refused).toMatchObject({ field: 'name', value: 'alice' });
    expect(await b.identities.get('u0')).toBeUndefined();
    expect(await b.identities.idsWithAnyAttribute(['refused'])).toEqual([]);

    await b.identities.create(identity('u1', 'up-one', { roleAttributes: ['before'] }));
    await b.identities.create(identity('u2', 'up-two'));
    await expect(
      b.identities.update(identity('u2', 'up-one', { roleAttributes: ['x'] })),
    ).rejects.toMatchObject({
      field: 'name',
      value: 'up-one',
    });
    expect(await b.identities.idsWithAnyAttribute(['x'])).toEqual([]);
    // a missing entity: false, unless its name is taken (SQLite checks the name first)
    await expect(b.identities.update(identity('u404', 'up-one'))).rejects.toBeInstanceOf(UniqueViolation);
    expect(await b.identities.update(identity('u404', 'free'))).toBe(false);
    expect(await b.identities.get('u404')).toBeUndefined();
    // keeping its own name is no violation
    expect(await b.identities.update(identity('u2', 'up-two', { isAdmin: true }))).toBe(true);
    expect((await b.identities.get('u2'))!.isAdmin).toBe(true);

    for (const id of ['u1', 'u2']) expect(await b.identities.delete(id)).toBe(true);
  });

  it('keeps the attribute index in step with updates and deletes', async () => {
    const later = new Date('2024-06-01T00:00:00.000Z');
    await b.identities.create(identity('a1', 'attributed', { roleAttributes: ['old', 'kept'] }));
    const renamed = identity('a1', 'renamed', { roleAttributes: ['kept', 'new'], updatedAt: later });
    expect(await b.identities.update(renamed)).toBe(true);
    expect(await b.identities.get('a1')).toStrictEqual(renamed);
    expect(await b.identities.getByName('attributed')).toBeUndefined();
    expect(await b.identities.idsWithAnyAttribute(['old'])).toEqual([]);
    expect(await b.identities.idsWithAnyAttribute(['new'])).toEqual(['a1']);
    expect(await b.identities.attributes()).toEqual(['eu', 'kept', 'new', 'ops', 'sales']);
    expect(await b.identities.delete('a1')).toBe(true);
    expect(await b.identities.delete('a1')).toBe(false);
    expect(await b.identities.idsWithAnyAttribute(['kept', 'new'])).toEqual([]);
    expect(await b.identities.attributes()).toEqual(['eu', 'ops', 'sales']);
    expect(await b.identities.count()).toBe(5);
  });

  it('finds the policies that select roles, per side, as their roles change', async () => {
    /** in id order, whether read or kept in memory (asked twice, the second answer may come from memory) */
    const ids = async (side: 'identity' | 'service' | 'postureCheck', roles: string[]) => {
      const found = (await b.servicePolicies.selecting(side, roles)).map((p) => p.id);
      expect((await b.servicePolicies.selecting(side, roles)).map((p) => p.id)).toEqual(found);
      return found;
    };
    expect(await ids('identity', ['#sales', '#all'])).toEqual(['p1', 'p2']);
    expect(await ids('identity', ['@i2'])).toEqual(['p3']);
    expect(await ids('service', ['@s1', '#public'])).toEqual(['p1', 'p2']);
    expect(await ids('service', ['#sales'])).toEqual([]);
    expect(await ids('identity', [])).toEqual([]);
    expect(await b.servicePolicies.selecting('postureCheck', ['#mfa'])).toStrictEqual([POLICIES[1]]);
    expect(
      summary(await b.servicePolicies.list({ ...ALL, filter: 'semantic = "AnyOf" sort by name desc' })),
    ).toEqual({
      names: ['dial-sales', 'dial-eu'],
      totalCount: 2,
      echoed: { limit: 10, offset: 0 },
    });
    expect(summary(await b.servicePolicies.list({ ...ALL, filter: 'type = "Bind"' })).names).toEqual([
      'bind-all',
    ]);

    const moved = { ...POLICIES[0]!, identityRoles: ['#marketing'], postureCheckRoles: ['#mfa'] };
    expect(await b.servicePolicies.update(moved)).toBe(true);
    expect(await ids('identity', ['#sales'])).toEqual([]);
    expect(await ids('identity', ['#marketing'])).toEqual(['p1']);
    expect(await ids('postureCheck', ['#mfa'])).toEqual(['p1', 'p2']);
    await expect(
      b.servicePolicies.create(policy('p9', 'dial-eu', { identityRoles: ['#x'] })),
    ).rejects.toMatchObject({
      field: 'name',
    });
    expect(await ids('identity', ['#x'])).toEqual([]);

    expect(await b.servicePolicies.delete('p3')).toBe(true);
    expect(await ids('identity', ['@i2', '#eu'])).toEqual([]);
    expect(await ids('service', ['#all'])).toEqual([]);
    expect(await b.servicePolicies.count()).toBe(2);
  });

  it('writes inside a transaction: a refused name leaves the rest, a rollback takes everything', async () => {
    await b.transaction(async () => {
      await b.identities.create(identity('t1', 'tx-one', { roleAttributes: ['tx'] }));
      await expect(b.identities.create(identity('t2', 'tx-one'))).rejects.toBeInstanceOf(UniqueViolation);
      await b.identities.create(identity('t3', 'tx-three', { roleAttributes: ['tx'] }));
    });
    expect(await b.identities.idsWithAnyAttribute(['tx'])).toEqual(['t1', 't3']);

    const failure = new Error('changed my mind');
    await expect(
      b.transaction(async () => {
        await b.identities.create(identity('t4', 'tx-four', { roleAttributes: ['rolled'] }));
        await b.identities.delete('t1');
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await b.identities.get('t4')).toBeUndefined();
    expect(await b.identities.idsWithAnyAttribute(['rolled', 'tx'])).toEqual(['t1', 't3']);
    for (const id of ['t1', 't3']) await b.identities.delete(id);
  });
});

describe('document repositories on PostgreSQL, shared by controllers', () => {
  /** Records the page queries the repository runs, to explain them. */
  class RecordingDatabase extends PgDatabase {
    readonly queries: { sql: string; params: readonly unknown[] }[] = [];
    override rows<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
      this.queries.push({ sql, params });
      return super.rows<R>(sql, params);
    }
  }

  let first: RecordingDatabase;
  let second: PgDatabase;
  beforeAll(async () => {
    const url = await server.createDatabase();
    first = new RecordingDatabase(await openPool(url));
    second = new PgDatabase(await openPool(url));
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  const identitiesOn = (db: PgDatabase) => pgDocuments<Identity>(db, ENTITY_KINDS.identities);

  it('of two creates of one name, exactly one lands', async () => {
    const [a, b] = [identitiesOn(first), identitiesOn(second)];
    for (let round = 0; round < 10; round++) {
      const name = `race-${round}`;
      const outcomes = await Promise.allSettled([
        a.create(identity(`ra-${round}`, name, { roleAttributes: ['racer'] })),
        b.create(identity(`rb-${round}`, name, { roleAttributes: ['racer'] })),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o) => o.status === 'rejected')!;
      expect(refused.reason).toBeInstanceOf(UniqueViolation);
    }
    expect(await a.count()).toBe(10);
    // the losers' attributes went with them
    expect(await a.idsWithAnyAttribute(['racer'])).toHaveLength(10);
  });

  it('of two renames to one name, exactly one lands; of two deletes, exactly one answers true', async () => {
    const [a, b] = [identitiesOn(first), identitiesOn(second)];
    for (let round = 0; round < 10; round++) {
      await a.create(identity(`x-${round}`, `x-${round}`));
      await a.create(identity(`y-${round}`, `y-${round}`));
      const renames = await Promise.allSettled([
        a.update(identity(`x-${round}`, `wanted-${round}`)),
        b.update(identity(`y-${round}`, `wanted-${round}`)),
      ]);
      expect(renames.filter((o) => o.status === 'fulfilled').map((o) => o.value)).toEqual([true]);
      expect(renames.find((o) => o.status === 'rejected')!.reason).toBeInstanceOf(UniqueViolation);

      const deletes = await Promise.all([a.delete(`x-${round}`), b.delete(`x-${round}`)]);
      expect(deletes.filter(Boolean)).toHaveLength(1);
    }
  });

  it.each([
    ['sort by type', 'identities_by_type'],
    ['sort by type desc', 'identities_by_type'],
    ['sort by createdAt', 'identities_by_created'],
    ['sort by createdAt desc', 'identities_by_created'],
  ])('lists %s reading %s, not sorting', async (sort, index) => {
    first.queries.length = 0;
    await identitiesOn(first).list({ limit: 25, offset: 0, filter: sort });
    const page = first.queries.find((q) => /ORDER BY/.test(q.sql))!;
    const client = await first.pool.connect();
    try {
      await client.query('BEGIN');
      // priced out where an index can serve, as a large table would make them
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_sort = off');
      const explained = await client.query(
        `EXPLAIN ${toPostgresPlaceholders(page.sql)}`,
        page.params as unknown[],
      );
      await client.query('ROLLBACK');
      const plan = explained.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain(index);
      expect(plan).not.toMatch(/\bSort\b/);
    } finally {
      client.release();
    }
  });
});
