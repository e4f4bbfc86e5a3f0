import type { Db } from '../database.js';
import { ENTITY_KINDS, type EntityKind } from '../entity-kinds.js';
import type { SyncRepositories } from '../repository.js';
import type {
  AuthPolicy,
  Config,
  Entity,
  ConfigType,
  EdgeRouter,
  EdgeRouterPolicy,
  ExternalJwtSigner,
  Identity,
  PostureCheck,
  Service,
  ServiceEdgeRouterPolicy,
  ServicePolicy,
} from '../../model.js';
import { AuthenticatorQueries } from '../repositories/authenticator-queries.js';
import { DocumentQueries } from '../repositories/document-queries.js';
import { DocumentCache } from '../repositories/document-cache.js';
import { ServicePolicyQueries } from '../repositories/service-policy-queries.js';
import { IdentityQueries } from '../repositories/identity-queries.js';
import { EnrollmentQueries } from '../repositories/enrollment-queries.js';
import { SQLITE } from '../sql/dialect.js';
import { sqliteFace } from '../sql/faces.js';
import { ApiSessionQueries } from '../repositories/api-session-queries.js';
import { ApiSessionCache } from '../repositories/api-session-cache.js';
import { SqlitePostureRepository } from './posture-repository.js';
import { MfaQueries } from '../repositories/mfa-queries.js';
import { SqliteDeadlineRepository } from './deadline-repository.js';
import { DeliveryQueries } from '../repositories/delivery-queries.js';
import type { Webhook } from '../../event-delivery-model.js';

const CACHED_IDENTITIES = 5_000;

/** true: keep every entity read; a number: at most that many, the least recently read go first */
const cacheOf = <T extends Entity>(cache: boolean | number) =>
  cache === false ? undefined : new DocumentCache<T>(cache === true ? Infinity : cache);

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
  readonly deadlines = new SqliteDeadlineRepository();
  readonly postureCheckExceptions;
  readonly postureCheckExceptionHistory;
  readonly postureCheckStates;
  readonly externalJwtSigners;
  readonly auditEvents;
  readonly webhooks;
  readonly deliveries;

  constructor(readonly db: Db) {
    const documents = <T extends Entity & { roleAttributes?: string[] }>(
      kind: EntityKind<T>,
      cache: boolean | number,
    ) => sqliteFace(new DocumentQueries<T>(SQLITE, kind, cacheOf<T>(cache)), db);
    // Every authenticated request reads its identity (the guard, then posture evaluation): the most recently
    // read are kept, a bounded number so a large directory does not all end up in memory.
    this.identities = sqliteFace(new IdentityQueries(SQLITE, cacheOf<Identity>(CACHED_IDENTITIES)), db);
    // The catalogue (services, checks, policies, auth policies), configs and routers are read on every access
    // decision, service listing, session and router link, and are small next to identities: kept in memory.
    this.services = documents<Service>(ENTITY_KINDS.services, true);
    this.configTypes = documents<ConfigType>(ENTITY_KINDS.configTypes, true);
    this.configs = documents<Config>(ENTITY_KINDS.configs, true);
    this.edgeRouters = documents<EdgeRouter>(ENTITY_KINDS.edgeRouters, true);
    this.edgeRouterPolicies = documents<EdgeRouterPolicy>(ENTITY_KINDS.edgeRouterPolicies, true);
    this.serviceEdgeRouterPolicies = documents<ServiceEdgeRouterPolicy>(
      ENTITY_KINDS.serviceEdgeRouterPolicies,
      true,
    );
    this.postureChecks = documents<PostureCheck>(ENTITY_KINDS.postureChecks, true);
    this.servicePolicies = sqliteFace(new ServicePolicyQueries(SQLITE, cacheOf<ServicePolicy>(true)), db);
    this.authPolicies = documents<AuthPolicy>(ENTITY_KINDS.authPolicies, true);
    // Exceptions are read with the catalogue; history and states only by the management lists.
    this.postureCheckExceptions = documents(ENTITY_KINDS.postureCheckExceptions, true);
    this.postureCheckExceptionHistory = documents(ENTITY_KINDS.postureCheckExceptionHistory, false);
    this.postureCheckStates = documents(ENTITY_KINDS.postureCheckStates, false);
    // Read at every external sign-in; a handful of providers.
    this.externalJwtSigners = documents<ExternalJwtSigner>(ENTITY_KINDS.externalJwtSigners, true);
    this.auditEvents = documents(ENTITY_KINDS.auditEvents, false);
    this.webhooks = documents<Webhook>(ENTITY_KINDS.webhooks, false);
    this.deliveries = sqliteFace(new DeliveryQueries(SQLITE), db);
    this.authenticators = sqliteFace(new AuthenticatorQueries(SQLITE), db);
    this.enrollments = sqliteFace(new EnrollmentQueries(SQLITE), db);
    this.apiSessions = sqliteFace(new ApiSessionQueries(SQLITE, new ApiSessionCache()), db);
    this.posture = new SqlitePostureRepository(db);
    this.forgetRowsOfEndedApiSessions();
    this.mfa = sqliteFace(new MfaQueries(SQLITE), db);
  }

  countIdentitiesWithAuthPolicy(authPolicyId: string): number {
    return this.identities.countWithAuthPolicy(authPolicyId);
  }

  identityByExternalId(externalId: string): Identity | undefined {
    return this.identities.byExternalId(externalId);
  }

  /**
   * An API session's edge sessions and posture row go with it (foreign keys that cascade, migration 12), behind
   * the posture repositories' caches: deleting one forgets what they hold of it.
   */
  private forgetRowsOfEndedApiSessions(): void {
    const { apiSessions, posture } = this;
    const forget = (id: string) => {
      posture.data.forgetApiSession(id);
      posture.sessions.clearCache();
    };
    const remove = apiSessions.delete.bind(apiSessions);
    apiSessions.delete = (id) => {
      forget(id);
      return remove(id);
    };
    const removeIdle = apiSessions.deleteIdleSince.bind(apiSessions);
    apiSessions.deleteIdleSince = (cutoff) => {
      const removed = removeIdle(cutoff);
      for (const { id } of removed) forget(id);
      return removed;
    };
  }

  /** Forgets every cached entity: after a rollback, a cache may hold writes that never landed. */
  clearCaches(): void {
    for (const repo of [
      this.identities,
      this.services,
      this.postureChecks,
      this.servicePolicies,
      this.authPolicies,
      this.postureCheckExceptions,
      this.configTypes,
      this.configs,
      this.edgeRouters,
      this.edgeRouterPolicies,
      this.serviceEdgeRouterPolicies,
      this.apiSessions,
    ])
      repo.clearCache();
    this.posture.data.clearCache();
    this.posture.sessions.clearCache();
  }
}
