import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { openDatabase, type Db } from './database.js';
import type { Store } from './repository.js';
import type { Identity } from '../model.js';
import { asyncFacade, type Async, type CallGate } from './async.js';
import { SqliteRepositories } from './sqlite/sqlite-repositories.js';
import { WriteLock } from './sqlite/write-lock.js';
import { runAfterCommit } from './after-commit.js';
import { CatalogueVersion } from './catalogue-version.js';
import { FLAT_REPOSITORIES, type FlatRepositories } from './repository-names.js';

/** What a caller inside a transaction carries along its awaits (AsyncLocalStorage). */
interface Transaction {
  open: boolean;
  /** run once the outermost transaction has committed */
  afterCommit: (() => unknown)[];
  savepoints: number;
}

interface BatchJob {
  fn: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The embedded default store: one SQLite file in the data folder, through better-sqlite3's synchronous calls.
 * A transaction holds the write lock from BEGIN to COMMIT, across its awaits; store calls from outside it wait
 * for the lock, calls from inside it (found through AsyncLocalStorage, however deep) run at once. Without an
 * open transaction a call runs synchronously and answers an already settled promise.
 */
export class SqliteStore implements Store {
  readonly backend = 'sqlite';
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
  readonly deadlines;
  readonly postureCheckExceptions;
  readonly postureCheckExceptionHistory;
  readonly postureCheckStates;
  readonly externalJwtSigners;
  readonly auditEvents;
  readonly webhooks;
  readonly deliveries;
  /** a deadline's owner; alone on its file, there is no other instance to tell it from */
  readonly instanceId = randomUUID();
  /** the synchronous repositories, for tests and tools that seed a database directly */
  readonly sync: SqliteRepositories;

  private readonly lock = new WriteLock();
  private readonly catalogue = new CatalogueVersion();
  private readonly context = new AsyncLocalStorage<Transaction>();
  private batchQueue: BatchJob[] = [];
  /** transactions open now (a group commit counts once) */
  private openTransactions = 0;

  constructor(readonly db: Db) {
    this.sync = new SqliteRepositories(db);
    const gate: CallGate = (call) => this.call(call);
    const facades = {} as { [K in keyof FlatRepositories]: Async<FlatRepositories[K]> };
    for (const name of FLAT_REPOSITORIES)
      (facades as Record<string, unknown>)[name] = asyncFacade(this.sync[name] as object, gate);
    this.identities = facades.identities;
    this.services = facades.services;
    this.postureChecks = facades.postureChecks;
    this.servicePolicies = facades.servicePolicies;
    this.authPolicies = facades.authPolicies;
    this.externalJwtSigners = facades.externalJwtSigners;
    this.configTypes = facades.configTypes;
    this.configs = facades.configs;
    this.edgeRouters = facades.edgeRouters;
    this.edgeRouterPolicies = facades.edgeRouterPolicies;
    this.serviceEdgeRouterPolicies = facades.serviceEdgeRouterPolicies;
    this.authenticators = facades.authenticators;
    this.enrollments = facades.enrollments;
    this.apiSessions = facades.apiSessions;
    this.mfa = facades.mfa;
    this.deadlines = facades.deadlines;
    this.postureCheckExceptions = facades.postureCheckExceptions;
    this.postureCheckExceptionHistory = facades.postureCheckExceptionHistory;
    this.postureCheckStates = facades.postureCheckStates;
    this.auditEvents = facades.auditEvents;
    this.webhooks = facades.webhooks;
    this.deliveries = facades.deliveries;
    this.posture = asyncFacade(this.sync.posture, gate, ['data', 'sessions', 'failures', 'changes']);
    for (const repo of [this.services, this.postureChecks, this.servicePolicies, this.postureCheckExceptions])
      this.catalogue.watchWrites(repo);
  }

  catalogueVersion(): number {
    return this.catalogue.current;
  }

  static open(dataDir: string): SqliteStore {
    return new SqliteStore(openDatabase(dataDir));
  }

  countIdentitiesWithAuthPolicy(authPolicyId: string): Promise<number> {
    return this.call(() => this.sync.countIdentitiesWithAuthPolicy(authPolicyId));
  }

  identityByExternalId(externalId: string): Promise<Identity | undefined> {
    return this.call(() => this.sync.identityByExternalId(externalId));
  }

  inTransaction(): boolean {
    return this.context.getStore()?.open === true;
  }

  afterCommit(fn: () => unknown): boolean {
    const tx = this.context.getStore();
    if (!tx?.open) return false;
    tx.afterCommit.push(fn);
    return true;
  }

  /** Nothing to wait for: a transaction holds the write lock from BEGIN to COMMIT. */
  serializeOn(): Promise<void> {
    if (!this.inTransaction()) return Promise.reject(new Error('serializeOn needs an open transaction'));
    return Promise.resolve();
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const outer = this.context.getStore();
    if (outer?.open) return this.savepoint(outer, fn);
    const release = await this.lock.acquire();
    const tx: Transaction = { open: true, afterCommit: [], savepoints: 0 };
    let result: T;
    this.openTransactions++;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        result = await this.context.run(tx, fn);
        this.db.exec('COMMIT');
      } catch (err) {
        this.rollback();
        throw err;
      }
    } finally {
      tx.open = false;
      this.closedTransaction();
      release();
    }
    await runAfterCommit(tx.afterCommit);
    return result;
  }

  /**
   * Group commit: batches queued during one turn of the event loop run in one SQLite transaction, each in its
   * own savepoint, so fifty concurrent posture reports cost one fsync instead of fifty. A batch that throws
   * rolls back only its savepoint and rejects only its own promise; every promise settles after the commit.
   */
  batch<T>(fn: () => Promise<T>): Promise<T> {
    const outer = this.context.getStore();
    if (outer?.open) return this.savepoint(outer, fn);
    return new Promise<T>((resolve, reject) => {
      this.batchQueue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (this.batchQueue.length === 1) setImmediate(() => void this.flushBatches());
    });
  }

  async close(): Promise<void> {
    // Let a transaction in flight finish rather than cut it off mid-way.
    const release = await this.lock.acquire();
    try {
      if (this.db.open) this.db.close();
    } finally {
      release();
    }
  }

  /**
   * With no transaction open, AsyncLocalStorage is switched off until the next one: while it is on, Node runs
   * its hooks for every promise anywhere in the process, and most requests (reads, repeated reports) open no
   * transaction. Off, `getStore()` answers undefined: no transaction, which is then the truth.
   */
  private closedTransaction(): void {
    if (--this.openTransactions === 0) this.context.disable();
  }

  /** One synchronous repository call: at once, unless a transaction the caller is not part of holds the lock. */
  private call<R>(call: () => R): Promise<R> {
    if (this.lock.isHeld && this.context.getStore()?.open !== true) return this.afterLock(call);
    try {
      return Promise.resolve(call());
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private async afterLock<R>(call: () => R): Promise<R> {
    const release = await this.lock.acquire();
    try {
      return call();
    } finally {
      release();
    }
  }

  private async savepoint<T>(tx: Transaction, fn: () => Promise<T>): Promise<T> {
    const name = `s${++tx.savepoints}`;
    const queued = tx.afterCommit.length;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      this.forgetCached();
      // What the undone part asked to run after commit belongs to writes that did not happen.
      tx.afterCommit.length = queued;
      throw err;
    }
  }

  private rollback(): void {
    if (this.db.open && this.db.inTransaction) this.db.exec('ROLLBACK');
    this.forgetCached();
  }

  /** A rollback may have undone writes whose entities a cache (or the catalogue) already holds. */
  private forgetCached(): void {
    this.sync.clearCaches();
    this.catalogue.bump();
  }

  private async flushBatches(): Promise<void> {
    const jobs = this.batchQueue;
    this.batchQueue = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    const tx: Transaction = { open: true, afterCommit: [], savepoints: 0 };
    const release = await this.lock.acquire();
    this.openTransactions++;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (const job of jobs) {
        try {
          outcomes.push({ ok: true, value: await this.context.run(tx, () => this.savepoint(tx, job.fn)) });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
      this.db.exec('COMMIT');
    } catch (error) {
      this.rollback();
      tx.open = false;
      this.closedTransaction();
      release();
      for (const job of jobs) job.reject(error);
      return;
    }
    tx.open = false;
    this.closedTransaction();
    release();
    await runAfterCommit(tx.afterCommit);
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
