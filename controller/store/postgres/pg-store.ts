/**
 * The store on PostgreSQL, which several controller instances may share: every repository reads and writes the
 * database (no entity caches: another instance may have changed what a cache would hold), transactions are
 * real database transactions (pg-database.ts), the schema is migrated once at start under an advisory lock.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type {
  AuthPolicy,
  Config,
  ConfigType,
  EdgeRouter,
  EdgeRouterPolicy,
  Entity,
  ExternalJwtSigner,
  Identity,
  Service,
  ServiceEdgeRouterPolicy,
} from '../../model.js';
import type { PostureCheck } from '../../posture-model.js';
import type { Store } from '../repository.js';
import { ENTITY_KINDS, type EntityKind } from '../entity-kinds.js';
import { CatalogueVersion } from '../catalogue-version.js';
import { PgDatabase } from './pg-database.js';
import { migratePostgres } from './migrate.js';
import { PgDocumentRepository } from './document-repository.js';
import { PgServicePolicyRepository } from './service-policy-repository.js';
import { PgAuthenticatorRepository } from './authenticator-repository.js';
import { PgEnrollmentRepository } from './enrollment-repository.js';
import { PgApiSessionRepository } from './api-session-repository.js';
import { PgMfaRepository } from './mfa-repository.js';
import { PgPostureRepository } from './posture-repository.js';
import { PgDeadlineRepository } from './deadline-repository.js';
import { countIdentitiesWithAuthPolicy, identityByExternalId } from './identity-queries.js';
import { PgDeliveryRepository } from './delivery-repository.js';
import type { Webhook } from '../../event-delivery-model.js';

/** The NOTIFY channel a catalogue change is announced on; the payload is the announcing instance's id. */
export const CATALOGUE_CHANNEL = 'postern_catalogue';

/** Connections per instance: enough for concurrent transactions, few enough for many instances on one server. */
const POOL_SIZE = 10;

export class PgStore implements Store {
  readonly backend = 'postgres';
  readonly identities;
  readonly services;
  readonly postureChecks;
  readonly servicePolicies;
  readonly authPolicies;
  readonly externalJwtSigners;
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
  readonly deadlines;
  readonly postureCheckExceptions;
  readonly postureCheckExceptionHistory;
  readonly postureCheckStates;
  readonly auditEvents;
  readonly webhooks;
  readonly deliveries;
  private readonly catalogue = new CatalogueVersion();
  /** tells this instance's own announcements from the others', and owns the deadlines it arms */
  readonly instanceId = randomUUID();

  constructor(readonly db: PgDatabase) {
    const documents = <T extends Entity & { roleAttributes?: string[] }>(kind: EntityKind<T>) =>
      new PgDocumentRepository<T>(db, kind.table, kind.roleKind, kind.revive, {
        filterExtras: kind.filterExtras,
      });
    this.identities = documents<Identity>(ENTITY_KINDS.identities);
    this.services = documents<Service>(ENTITY_KINDS.services);
    this.configTypes = documents<ConfigType>(ENTITY_KINDS.configTypes);
    this.configs = documents<Config>(ENTITY_KINDS.configs);
    this.edgeRouters = documents<EdgeRouter>(ENTITY_KINDS.edgeRouters);
    this.edgeRouterPolicies = documents<EdgeRouterPolicy>(ENTITY_KINDS.edgeRouterPolicies);
    this.serviceEdgeRouterPolicies = documents<ServiceEdgeRouterPolicy>(
      ENTITY_KINDS.serviceEdgeRouterPolicies,
    );
    this.postureChecks = documents<PostureCheck>(ENTITY_KINDS.postureChecks);
    this.servicePolicies = new PgServicePolicyRepository(db);
    this.authPolicies = documents<AuthPolicy>(ENTITY_KINDS.authPolicies);
    this.externalJwtSigners = documents<ExternalJwtSigner>(ENTITY_KINDS.externalJwtSigners);
    this.authenticators = new PgAuthenticatorRepository(db);
    this.enrollments = new PgEnrollmentRepository(db);
    this.apiSessions = new PgApiSessionRepository(db);
    this.posture = new PgPostureRepository(db);
    this.mfa = new PgMfaRepository(db);
    this.deadlines = new PgDeadlineRepository(db);
    this.postureCheckExceptions = documents(ENTITY_KINDS.postureCheckExceptions);
    this.postureCheckExceptionHistory = documents(ENTITY_KINDS.postureCheckExceptionHistory);
    this.postureCheckStates = documents(ENTITY_KINDS.postureCheckStates);
    this.auditEvents = documents(ENTITY_KINDS.auditEvents);
    this.webhooks = documents<Webhook>(ENTITY_KINDS.webhooks);
    this.deliveries = new PgDeliveryRepository(db);
    for (const repo of [
      this.services,
      this.postureChecks,
      this.servicePolicies,
      this.postureCheckExceptions,
    ]) {
      this.announceWrites(repo);
      this.catalogue.watchWrites(repo, (fn) => this.db.afterCommit(fn));
    }
    // What routers are told (targets, which router carries what, which routers may link) and how identities
    // sign in: the other instances re-decide their sessions and resync their routers on hearing it.
    for (const repo of [
      this.configs,
      this.edgeRouters,
      this.edgeRouterPolicies,
      this.serviceEdgeRouterPolicies,
      this.authPolicies,
    ])
      this.announceWrites(repo);
  }

  /**
   * A write to a catalogue kind is announced to the other instances sharing the database (NOTIFY, delivered
   * when its transaction commits, never for a rolled-back one); they rebuild their catalogue on hearing it.
   */
  private announceWrites(repo: object): void {
    const writable = repo as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of ['create', 'update', 'delete']) {
      const write = writable[name]!.bind(repo);
      writable[name] = (...args: unknown[]) =>
        this.db.transaction(async () => {
          const result = await write(...args);
          await this.db.run(`SELECT pg_notify('${CATALOGUE_CHANNEL}', ?)`, [this.instanceId]);
          return result;
        });
    }
  }

  /** Connects, migrates (once, whichever instance gets the lock first) and answers the store. */
  static async open(url: string): Promise<PgStore> {
    const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
    // An idle connection the server dropped must not take the controller down with an unhandled error.
    pool.on('error', () => undefined);
    try {
      await migratePostgres(pool);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PgStore(new PgDatabase(pool));
  }

  get pool(): pg.Pool {
    return this.db.pool;
  }

  countIdentitiesWithAuthPolicy(authPolicyId: string): Promise<number> {
    return countIdentitiesWithAuthPolicy(this.db, authPolicyId);
  }

  identityByExternalId(externalId: string): Promise<Identity | undefined> {
    return identityByExternalId(this.db, this.identities, externalId);
  }

  catalogueVersion(): number {
    return this.catalogue.current;
  }

  /**
   * Some instance changed what access or routing depends on: the next access decision here reads the
   * catalogue again. Answers whether it was another instance (or maybe one: '' after a reconnect).
   */
  catalogueChanged(announcedBy: string): boolean {
    if (announcedBy === this.instanceId) return false;
    this.catalogue.bump();
    return true;
  }

  inTransaction(): boolean {
    return this.db.inTransaction();
  }

  afterCommit(fn: () => unknown): boolean {
    return this.db.afterCommit(fn);
  }

  async serializeOn(key: string): Promise<void> {
    if (!this.db.inTransaction()) throw new Error('serializeOn needs an open transaction');
    // hashtextextended: a 64-bit key from the text, so unrelated keys rarely share a lock.
    await this.db.run(`SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`, [key]);
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(fn);
    } catch (err) {
      // The rollback may have undone catalogue writes the in-memory catalogue already saw.
      this.catalogue.bump();
      throw err;
    }
  }

  /** Each batch is its own transaction: PostgreSQL commits concurrent transactions in parallel already. */
  batch<T>(fn: () => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
