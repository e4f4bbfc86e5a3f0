import { openDatabase, type Db } from './database.js';
import type { Store } from './repository.js';
import type {
  AuthPolicy,
  Config,
  ConfigType,
  EdgeRouter,
  EdgeRouterPolicy,
  Identity,
  PostureCheck,
  Service,
  ServiceEdgeRouterPolicy,
} from '../model.js';
import { DocumentRepository } from './sqlite/document-repository.js';
import { SqliteServicePolicyRepository } from './sqlite/service-policy-repository.js';
import { SqliteAuthenticatorRepository } from './sqlite/authenticator-repository.js';
import { SqliteEnrollmentRepository } from './sqlite/enrollment-repository.js';
import { SqliteApiSessionRepository } from './sqlite/api-session-repository.js';
import { SqlitePostureRepository } from './sqlite/posture-repository.js';
import { SqliteMfaRepository } from './sqlite/mfa-repository.js';
import { GroupCommit } from './sqlite/group-commit.js';

const CACHED_IDENTITIES = 5_000;

/** The shipped store: one SQLite file in the data dir. Other stores (e.g. PostgreSQL) implement `Store` too. */
export class SqliteStore implements Store {
  readonly identities;
  readonly services;
  readonly postureChecks;
  readonly servicePolicies;
  readonly authPolicies;
  readonly configTypes;
  readonly configs;
  readonly edgeRouters;
  readonly edgeRouterPolicies;
  readonly serviceEdgeRouterPolicies;
  readonly authenticators;
  readonly enrollments;
  readonly apiSessions;
  readonly posture;
  readonly mfa;

  private readonly commits: GroupCommit;
  /** `transaction` through one wrapper made once (better-sqlite3 builds four per `db.transaction` call) */
  private readonly atomically: <T>(fn: () => T) => T;

  constructor(readonly db: Db) {
    this.commits = new GroupCommit(db, () => this.clearCaches());
    this.atomically = db.transaction((fn: () => unknown) => fn()) as <T>(fn: () => T) => T;
    // Every authenticated request reads its identity (the guard, then posture evaluation): the most recently
    // read are kept, a bounded number so a large directory does not all end up in memory.
    this.identities = new DocumentRepository<Identity>(db, 'identities', 'identity', undefined, {
      cache: CACHED_IDENTITIES,
      filterExtras: [
        ['isAdmin', 'boolean'],
        ['isDefaultAdmin', 'boolean'],
        ['disabled', 'boolean'],
        ['type', 'string'],
        ['externalId', 'string'],
        ['authPolicyId', 'string'],
      ],
    });
    // The catalogue (services, checks, policies, auth policies) is read on every access decision and is
    // small next to identities, so those repositories keep parsed entities in memory.
    const cached = { cache: true };
    // Services stored before configs existed have none.
    const reviveService = (doc: Record<string, unknown>) => ({ configs: (doc.configs as string[]) ?? [] });
    this.services = new DocumentRepository<Service>(db, 'services', 'service', reviveService, {
      ...cached,
      filterExtras: [['encryptionRequired', 'boolean']],
    });
    // Configs and routers are read for every service listing, session and router link: cached like services.
    this.configTypes = new DocumentRepository<ConfigType>(db, 'config_types', null, undefined, cached);
    this.configs = new DocumentRepository<Config>(db, 'configs', null, undefined, cached);
    this.edgeRouters = new DocumentRepository<EdgeRouter>(
      db,
      'edge_routers',
      'edgeRouter',
      undefined,
      cached,
    );
    this.edgeRouterPolicies = new DocumentRepository<EdgeRouterPolicy>(
      db,
      'edge_router_policies',
      null,
      undefined,
      cached,
    );
    this.serviceEdgeRouterPolicies = new DocumentRepository<ServiceEdgeRouterPolicy>(
      db,
      'service_edge_router_policies',
      null,
      undefined,
      cached,
    );
    this.postureChecks = new DocumentRepository<PostureCheck>(
      db,
      'posture_checks',
      'postureCheck',
      undefined,
      {
        ...cached,
        filterExtras: [['typeId', 'string']],
      },
    );
    this.servicePolicies = new SqliteServicePolicyRepository(db);
    this.authPolicies = new DocumentRepository<AuthPolicy>(db, 'auth_policies', null, undefined, cached);
    this.authenticators = new SqliteAuthenticatorRepository(db);
    this.enrollments = new SqliteEnrollmentRepository(db);
    this.apiSessions = new SqliteApiSessionRepository(db);
    this.posture = new SqlitePostureRepository(db);
    this.mfa = new SqliteMfaRepository(db);
  }

  static open(dataDir: string): SqliteStore {
    return new SqliteStore(openDatabase(dataDir));
  }

  countIdentitiesWithAuthPolicy(authPolicyId: string): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM identities WHERE json_extract(doc, '$.authPolicyId') = ?`)
      .get(authPolicyId) as { n: number };
    return row.n;
  }

  inTransaction(): boolean {
    return this.db.open && this.db.inTransaction;
  }

  transaction<T>(fn: () => T): T {
    try {
      return this.atomically(fn);
    } catch (err) {
      // The rollback may have undone writes whose entities a cache already holds.
      this.clearCaches();
      throw err;
    }
  }

  batch<T>(fn: () => T): Promise<T> {
    return this.commits.run(fn);
  }

  private clearCaches(): void {
    for (const repo of [
      this.identities,
      this.services,
      this.postureChecks,
      this.servicePolicies,
      this.authPolicies,
      this.configTypes,
      this.configs,
      this.edgeRouters,
      this.edgeRouterPolicies,
      this.serviceEdgeRouterPolicies,
      this.apiSessions,
    ])
      repo.clearCache();
    this.posture.data.clearCache();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
