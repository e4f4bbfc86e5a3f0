import type { Db } from '../database.js';
import type { SyncRepositories } from '../repository.js';
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
} from '../../model.js';
import { DocumentRepository } from './document-repository.js';
import { SqliteServicePolicyRepository } from './service-policy-repository.js';
import { SqliteAuthenticatorRepository } from './authenticator-repository.js';
import { SqliteEnrollmentRepository } from './enrollment-repository.js';
import { SqliteApiSessionRepository } from './api-session-repository.js';
import { SqlitePostureRepository } from './posture-repository.js';
import { SqliteMfaRepository } from './mfa-repository.js';

const CACHED_IDENTITIES = 5_000;

/**
 * SQLite's repositories, synchronous as better-sqlite3 is; `SqliteStore` (sqlite-store.ts) gives them their
 * asynchronous face and the transactions.
 */
export class SqliteRepositories implements SyncRepositories {
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

  constructor(readonly db: Db) {
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

  countIdentitiesWithAuthPolicy(authPolicyId: string): number {
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM identities WHERE json_extract(doc, '$.authPolicyId') = ?`)
      .get(authPolicyId) as { n: number };
    return row.n;
  }

  /** Forgets every cached entity: after a rollback, a cache may hold writes that never landed. */
  clearCaches(): void {
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
}
