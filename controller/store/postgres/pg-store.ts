/**
 * The store on PostgreSQL, which several controller instances may share: transactions are real database
 * transactions (pg-database.ts), the schema is migrated once at start under an advisory lock. What every
 * request reads (API sessions, identities, posture data, the catalogue's kinds, routers and their policies) is
 * kept in memory as on SQLite, and kept correct across instances by announcements over NOTIFY
 * (cross-instance-caches.ts); the access outbox's listening connection hears them (`caches`).
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
import { DocumentQueries } from '../repositories/document-queries.js';
import { pgCachedDocuments } from './cached-document-repository.js';
import { CrossInstanceCaches } from './cross-instance-caches.js';
import { AuthenticatorQueries } from '../repositories/authenticator-queries.js';
import { ServicePolicyQueries } from '../repositories/service-policy-queries.js';
import { IdentityQueries } from '../repositories/identity-queries.js';
import { EnrollmentQueries } from '../repositories/enrollment-queries.js';
import { POSTGRES } from '../sql/dialect.js';
import { postgresFace } from '../sql/faces.js';
import { PgApiSessionRepository } from './api-session-repository.js';
import { MfaQueries } from '../repositories/mfa-queries.js';
import { PgPostureRepository } from './posture-repository.js';
import { PgDeadlineRepository } from './deadline-repository.js';
import { DeliveryQueries } from '../repositories/delivery-queries.js';
import type { Webhook } from '../../event-delivery-model.js';

/** The NOTIFY channel a catalogue change is announced on; the payload is the announcing instance's id. */
export const CATALOGUE_CHANNEL = 'postern_catalogue';

/** Identities kept in memory, at most (the most recently read), as on SQLite: a large directory stays out. */
const CACHED_IDENTITIES = 5_000;

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
  /** the caches' announcements and their rules; the access outbox's listener feeds it */
  readonly caches: CrossInstanceCaches;
  /** the document kinds kept in memory whole: a catalogue announcement drops them too */
  private readonly catalogueKinds: string[];

  constructor(readonly db: PgDatabase) {
    // A transaction rolled back on a conflict may have undone catalogue writes the catalogue already saw.
    db.onConflictRetry(() => this.catalogue.bump());
    const caches = (this.caches = new CrossInstanceCaches(db, this.instanceId));
    const documents = <T extends Entity & { roleAttributes?: string[] }>(
      kind: EntityKind<T>,
      cached?: number,
    ) =>
      cached === undefined
        ? postgresFace(new DocumentQueries<T>(POSTGRES, kind), db)
        : pgCachedDocuments<T, DocumentQueries<T>>(
            db,
            caches,
            kind.table,
            cached,
            (cache) => new DocumentQueries<T>(POSTGRES, kind, cache),
          );
    // As on SQLite (sqlite-repositories.ts): identities read most recently, a bounded number; the catalogue's
    // kinds, configs, routers and their policies whole (small next to identities, read on every decision).
    this.identities = pgCachedDocuments<Identity, IdentityQueries>(
      db,
      caches,
      ENTITY_KINDS.identities.table,
      CACHED_IDENTITIES,
      (cache) => new IdentityQueries(POSTGRES, cache),
    );
    this.services = documents<Service>(ENTITY_KINDS.services, Infinity);
    this.configTypes = documents<ConfigType>(ENTITY_KINDS.configTypes, Infinity);
    this.configs = documents<Config>(ENTITY_KINDS.configs, Infinity);
    this.edgeRouters = documents<EdgeRouter>(ENTITY_KINDS.edgeRouters, Infinity);
    this.edgeRouterPolicies = documents<EdgeRouterPolicy>(ENTITY_KINDS.edgeRouterPolicies, Infinity);
    this.serviceEdgeRouterPolicies = documents<ServiceEdgeRouterPolicy>(
      ENTITY_KINDS.serviceEdgeRouterPolicies,
      Infinity,
    );
    this.postureChecks = documents<PostureCheck>(ENTITY_KINDS.postureChecks, Infinity);
    this.servicePolicies = postgresFace(new ServicePolicyQueries(POSTGRES), db);
    this.authPolicies = documents<AuthPolicy>(ENTITY_KINDS.authPolicies, Infinity);
    this.externalJwtSigners = documents<ExternalJwtSigner>(ENTITY_KINDS.externalJwtSigners, Infinity);
    this.catalogueKinds = [
      ENTITY_KINDS.services,
      ENTITY_KINDS.configTypes,
      ENTITY_KINDS.configs,
      ENTITY_KINDS.edgeRouters,
      ENTITY_KINDS.edgeRouterPolicies,
      ENTITY_KINDS.serviceEdgeRouterPolicies,
      ENTITY_KINDS.postureChecks,
      ENTITY_KINDS.authPolicies,
      ENTITY_KINDS.externalJwtSigners,
    ].map((kind) => kind.table);
    this.authenticators = postgresFace(new AuthenticatorQueries(POSTGRES), db);
    this.enrollments = postgresFace(new EnrollmentQueries(POSTGRES), db);
    this.apiSessions = new PgApiSessionRepository(db, caches);
    this.posture = new PgPostureRepository(db, caches);
    this.mfa = postgresFace(new MfaQueries(POSTGRES), db);
    this.deadlines = new PgDeadlineRepository(db);
    this.postureCheckExceptions = documents(ENTITY_KINDS.postureCheckExceptions);
    this.postureCheckExceptionHistory = documents(ENTITY_KINDS.postureCheckExceptionHistory);
    this.postureCheckStates = documents(ENTITY_KINDS.postureCheckStates);
    this.auditEvents = documents(ENTITY_KINDS.auditEvents);
    this.webhooks = documents<Webhook>(ENTITY_KINDS.webhooks);
    this.deliveries = postgresFace(new DeliveryQueries(POSTGRES), db);
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
    return this.identities.countWithAuthPolicy(authPolicyId);
  }

  identityByExternalId(externalId: string): Promise<Identity | undefined> {
    return this.identities.byExternalId(externalId);
  }

  catalogueVersion(): number {
    // While no connection listens, another instance's change to the catalogue may go unheard: every decision
    // then reads the catalogue again, as the caches read the database, until LISTEN is back (which moves the
    // version once more).
    if (!this.caches.isListening()) this.catalogue.bump();
    return this.catalogue.current;
  }

  /**
   * Some instance changed what access or routing depends on: the next access decision here reads the
   * catalogue again. Answers whether it was another instance (or maybe one: '' after a reconnect).
   */
  catalogueChanged(announcedBy: string): boolean {
    if (announcedBy === this.instanceId) return false;
    // Its own announcement on the cache channel may be heard a moment later: the kinds go now, before the
    // catalogue and the routers' lists are read again.
    for (const kind of this.catalogueKinds) this.caches.forgetKind(kind);
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

  async close(): Promise<void> {
    await this.posture.data.flushReportedTimes();
    await this.db.close();
  }
}
