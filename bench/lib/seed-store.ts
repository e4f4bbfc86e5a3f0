/**
 * Seeds large data sets straight into a controller data dir through SqliteStore's synchronous repositories
 * (`store.sync`: the same ones the controller writes with, without their asynchronous face), then the
 * controller is started on that dir. 100k identities through the HTTP API would take most of an hour of scrypt
 * and fsyncs; through the store, in one better-sqlite3 transaction, seconds. Only for a store no controller
 * is using yet: these writes bypass SqliteStore's lock and transactions.
 *
 * The shape: identities carry two of 200 team attributes; 5k services in 500 groups of 10; 500 posture
 * checks of five types in 100 groups of 5; 1k Dial policies, policy j selecting team j%200, service group
 * j%500 and check group j%100. An identity carrying only `team-0` is selected by 5 policies, hence reaches
 * exactly 50 services, each behind 5 checks.
 */
import { randomUUID } from 'node:crypto';
import { hashPassword } from '../../controller/auth/passwords.js';
import { hashToken } from '../../controller/auth/api-sessions.js';
import type { ApiSession, Identity, Service, ServicePolicy } from '../../controller/model.js';
import { getCheckModule } from '../../controller/posture/checks/index.js';
import type { PostureCheck } from '../../controller/posture-model.js';
import type { SqliteStore } from '../../controller/store/sqlite-store.js';
import type { Store } from '../../controller/store/repository.js';

export const TEAMS = 200;
const SERVICE_GROUPS = 500;
const CHECK_GROUPS = 100;

export interface CatalogSize {
  services: number;
  policies: number;
  checks: number;
}

export const FULL_CATALOG: CatalogSize = { services: 5_000, policies: 1_000, checks: 500 };

const base = (name: string) => {
  const now = new Date();
  return { id: randomUUID(), name, tags: {}, createdAt: now, updatedAt: now };
};

/**
 * The body of check `i`. Group `cg-k` holds checks k, k+100, ..., k+400, one of each of five types; the
 * seeded posture data passes the OS, MAC, DOMAIN and PROCESS ones (MFA needs a TOTP pass).
 */
function checkBody(i: number): Record<string, unknown> {
  switch (Math.floor(i / CHECK_GROUPS) % 5) {
    case 0:
      return { typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: [`>=5.${i % 10}.0`] }] };
    case 1:
      return {
        typeId: 'MAC',
        macAddresses: ['aa:bb:cc:00:00:01', `aa:bb:cc:00:${(i % 256).toString(16).padStart(2, '0')}:02`],
      };
    case 2:
      return { typeId: 'DOMAIN', domains: ['bench.example', `d${i}.example`] };
    case 3:
      return { typeId: 'PROCESS', process: { osType: 'Linux', path: `/opt/bench/p${i % 2}`, hashes: [] } };
    default:
      return { typeId: 'MFA', timeoutSeconds: -1 };
  }
}

/** Runs `fn` in one better-sqlite3 transaction (synchronous: seeding only, see above). */
function inOneTransaction<T>(store: SqliteStore, fn: () => T): T {
  return store.db.transaction(fn)();
}

/** The catalogue's entities in creation order (checks, services, policies), each with its repository. */
function* catalogEntities(
  size: CatalogSize,
): Generator<
  | { kind: 'postureChecks'; entity: PostureCheck }
  | { kind: 'services'; entity: Service }
  | { kind: 'servicePolicies'; entity: ServicePolicy }
> {
  for (let i = 0; i < size.checks; i++) {
    const body = checkBody(i);
    const parsed = getCheckModule(body.typeId as string)!.parse(body, 'create');
    if (!parsed.ok) throw new Error(`check ${i}: ${JSON.stringify(parsed.problems)}`);
    yield {
      kind: 'postureChecks',
      entity: {
        ...parsed.spec,
        ...base(`check-${i}`),
        roleAttributes: [`cg-${i % CHECK_GROUPS}`],
        version: 1,
      } as PostureCheck,
    };
  }
  for (let i = 0; i < size.services; i++) {
    yield {
      kind: 'services',
      entity: {
        ...base(`service-${i}`),
        roleAttributes: [`sg-${i % SERVICE_GROUPS}`],
        configs: [],
        encryptionRequired: true,
        terminatorStrategy: 'smartrouting',
        maxIdleTimeMillis: 0,
      } satisfies Service,
    };
  }
  for (let j = 0; j < size.policies; j++) {
    yield {
      kind: 'servicePolicies',
      entity: {
        ...base(`policy-${j}`),
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: [`#team-${j % TEAMS}`],
        serviceRoles: [`#sg-${j % SERVICE_GROUPS}`],
        postureCheckRoles: [`#cg-${j % CHECK_GROUPS}`],
      } satisfies ServicePolicy,
    };
  }
}

export function seedCatalog(store: SqliteStore, size: CatalogSize = FULL_CATALOG): void {
  const { sync } = store;
  inOneTransaction(store, () => {
    for (const { kind, entity } of catalogEntities(size))
      (sync[kind] as { create(e: typeof entity): void }).create(entity);
  });
}

/** seedCatalog through any store's asynchronous face (PostgreSQL), in one transaction. */
export async function seedCatalogAsync(store: Store, size: CatalogSize = FULL_CATALOG): Promise<void> {
  await store.transaction(async () => {
    for (const { kind, entity } of catalogEntities(size))
      await (store[kind] as { create(e: typeof entity): Promise<void> }).create(entity);
  });
}

function identity(name: string, roleAttributes: string[]): Identity {
  return {
    ...base(name),
    type: 'User',
    isAdmin: false,
    isDefaultAdmin: false,
    roleAttributes,
    authPolicyId: 'default',
    externalId: null,
    disabled: false,
  };
}

/** What every seeded device reports: facts that pass the seeded OS, MAC and DOMAIN checks. */
function postureFacts(checkId: string) {
  const lastUpdatedAt = new Date();
  return {
    os: { type: 'Linux', version: '6.8.0', build: null, postureCheckId: checkId, lastUpdatedAt },
    mac: { addresses: ['aabbcc000001'], postureCheckId: checkId, lastUpdatedAt },
    domain: { domain: 'bench.example', postureCheckId: checkId, lastUpdatedAt },
    processes: [0, 1].map((p) => ({
      path: `/opt/bench/p${p}`,
      isRunning: true,
      hash: 'c'.repeat(64),
      signerFingerprints: [],
      postureCheckId: checkId,
      lastUpdatedAt,
    })),
  };
}

export function seedPostureData(store: SqliteStore, identityId: string, checkId = 'seeded'): void {
  const { data } = store.sync.posture;
  const facts = postureFacts(checkId);
  data.setOs(identityId, facts.os);
  data.setMac(identityId, facts.mac);
  data.setDomain(identityId, facts.domain);
  for (const p of facts.processes) data.setProcess(identityId, p);
}

/** The seeded identity `bulk-<i>`: two teams. */
const bulkIdentity = (i: number) =>
  identity(`bulk-${i}`, [`team-${i % TEAMS}`, `team-${(i * 7 + 3) % TEAMS}`]);

/** Identities `bulk-<from>` .. `bulk-<to - 1>`, two teams each, optionally with posture data. */
export function seedIdentities(store: SqliteStore, from: number, to: number, withPostureData = true): void {
  const chunk = 10_000;
  for (let start = from; start < to; start += chunk) {
    inOneTransaction(store, () => {
      for (let i = start; i < Math.min(to, start + chunk); i++) {
        const entity = bulkIdentity(i);
        store.sync.identities.create(entity);
        if (withPostureData) seedPostureData(store, entity.id);
      }
    });
  }
}

/** seedIdentities (with posture data) through any store's asynchronous face (PostgreSQL). */
export async function seedIdentitiesAsync(store: Store, from: number, to: number): Promise<void> {
  const chunk = 1_000;
  for (let start = from; start < to; start += chunk) {
    await store.transaction(async () => {
      for (let i = start; i < Math.min(to, start + chunk); i++) {
        const entity = bulkIdentity(i);
        await store.identities.create(entity);
        const { data } = store.posture;
        const facts = postureFacts('seeded');
        await data.setOs(entity.id, facts.os);
        await data.setMac(entity.id, facts.mac);
        await data.setDomain(entity.id, facts.domain);
        for (const p of facts.processes) await data.setProcess(entity.id, p);
      }
    });
  }
}

/**
 * Identities with a password (one scrypt hash, shared by every user this call makes). A store seeded before
 * the controller's first start gets no bootstrap admin (the store is not empty): seed one with `isAdmin`.
 */
export async function seedUsers(
  store: Store,
  names: string[],
  password: string,
  roleAttributes: string[],
  isAdmin = false,
): Promise<string[]> {
  const passwordHash = await hashPassword(password);
  return store.transaction(async () => {
    const ids: string[] = [];
    for (const name of names) {
      const entity = { ...identity(isAdmin ? `${name} (seeded admin)` : name, roleAttributes), isAdmin };
      await store.identities.create(entity);
      const now = new Date();
      await store.authenticators.create({
        id: randomUUID(),
        identityId: entity.id,
        method: 'updb',
        username: name,
        passwordHash,
        createdAt: now,
        updatedAt: now,
      });
      ids.push(entity.id);
    }
    return ids;
  });
}

/**
 * An API session row with a known token, as a password login would have made it. For runs that need
 * hundreds of sessions: each real login costs ~0.1 s of scrypt by design. Through the store's asynchronous
 * face, so it seeds either backend; call it inside `store.transaction` to make many in one commit.
 */
export async function seedApiSession(
  store: Store,
  identityId: string,
  sdkType = 'postern-bench',
): Promise<{ id: string; token: string }> {
  const token = randomUUID();
  const now = new Date();
  const session: ApiSession = {
    id: randomUUID(),
    identityId,
    authenticatorId: (await store.authenticators.listByIdentity(identityId))[0]?.id ?? 'seeded',
    ipAddress: '127.0.0.1',
    configTypes: [],
    envInfo: {},
    sdkInfo: { type: sdkType, version: '0.1.0' },
    isMfaRequired: false,
    isMfaComplete: false,
    createdAt: now,
    updatedAt: now,
    lastActivityAt: now,
  };
  await store.apiSessions.create(session, hashToken(token));
  // The posture row a login's `apiSession.created` event would have made.
  await store.posture.data.updateApiSession(session.id, identityId, { sdkInfo: session.sdkInfo });
  return { id: session.id, token };
}
