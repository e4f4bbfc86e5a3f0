/**
 * PostgreSQL through a `pg` pool, with the store's transaction model: `transaction(fn)` takes one pooled
 * connection, runs `fn` inside BEGIN … COMMIT, and every query awaited inside it, however deep, runs on that
 * connection (AsyncLocalStorage finds it); a nested call is a savepoint. Outside a transaction a query takes
 * any free connection. Work queued with `afterCommit` runs once the outermost transaction has committed, and
 * `transaction` resolves after it settled (events are published there).
 *
 * Isolation is PostgreSQL's default, READ COMMITTED: repositories make each check-and-set one statement
 * (`UPDATE … WHERE <expected> RETURNING`, `INSERT … ON CONFLICT`) or lock the row they read (`FOR UPDATE`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { runAfterCommit } from '../after-commit.js';
import type pg from 'pg';
import { toPostgresPlaceholders } from './sql.js';
import { retryTransientConflicts } from './transient-conflicts.js';

interface Transaction {
  open: boolean;
  client: pg.PoolClient;
  /** the last query sent on the client: one connection runs one query at a time, so they queue here */
  last: Promise<unknown>;
  afterCommit: (() => unknown)[];
  /** statements sent just before COMMIT, in the transaction (its cache announcements) */
  beforeCommit: (() => Promise<unknown>)[];
  /** what a component keeps for the length of this transaction, by the component */
  locals: Map<object, unknown>;
  savepoints: number;
  /** it wrote rows the access outbox delivers (edge sessions, access changes) */
  outbox?: boolean;
}

export class PgDatabase {
  private readonly context = new AsyncLocalStorage<Transaction>();
  private outboxDelivery: (() => Promise<void>) | undefined;
  private conflictListener: (() => void) | undefined;

  constructor(readonly pool: pg.Pool) {}

  /** The rows a query answers; `?` placeholders, values in `params`. */
  async rows<R = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return (await this.query(sql, params)).rows as R[];
  }

  /** The first row, or undefined. */
  async one<R = Record<string, unknown>>(
    sql: string,
    params: readonly unknown[] = [],
  ): Promise<R | undefined> {
    return (await this.query(sql, params)).rows[0] as R | undefined;
  }

  /** How many rows a write touched. */
  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  /** How this instance delivers the outbox now (its PgAccessOutbox's catch-up). */
  onOutboxWrite(deliver: () => Promise<void>): void {
    this.outboxDelivery = deliver;
  }

  /**
   * A statement just wrote outbox rows (through the schema's triggers). Like SQLite's outbox, this instance
   * publishes them before its caller answers: at once, or when the transaction they belong to has committed.
   * Other instances hear of them through NOTIFY.
   */
  async outboxWritten(): Promise<void> {
    const tx = this.context.getStore();
    if (tx?.open) tx.outbox = true;
    else await this.outboxDelivery?.();
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

  /**
   * What `owner` keeps for the open transaction, made by `make` on first use (with `beforeCommit` to send it
   * before COMMIT); undefined outside a transaction.
   */
  transactionLocal<T>(
    owner: object,
    make: (beforeCommit: (fn: () => Promise<unknown>) => void) => T,
  ): T | undefined {
    const tx = this.context.getStore();
    if (!tx?.open) return undefined;
    if (!tx.locals.has(owner))
      tx.locals.set(
        owner,
        make((fn) => tx.beforeCommit.push(fn)),
      );
    return tx.locals.get(owner) as T;
  }

  /** What to do when a transaction rolled back on a conflict and runs again (the store's catalogue moves). */
  onConflictRetry(listener: () => void): void {
    this.conflictListener = listener;
  }

  /**
   * Runs `fn` in a transaction (a savepoint inside an open one). The outermost runs again after a deadlock or
   * serialization failure (transient-conflicts.ts): `fn` must be safe to run twice, which holds as long as what
   * it does outside the database waits for the commit (`afterCommit`).
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const outer = this.context.getStore();
    if (outer?.open) return this.savepoint(outer, fn);
    return retryTransientConflicts(
      () => this.outermost(fn),
      () => this.conflictListener?.(),
    );
  }

  private async outermost<T>(fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const tx: Transaction = {
      open: true,
      client,
      last: Promise.resolve(),
      afterCommit: [],
      beforeCommit: [],
      locals: new Map(),
      savepoints: 0,
    };
    let result: T;
    let broken = false;
    try {
      await client.query('BEGIN');
      try {
        result = await this.context.run(tx, fn);
        for (const last of tx.beforeCommit) await this.context.run(tx, last);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        throw err;
      }
    } finally {
      tx.open = false;
      // A connection whose rollback failed is in an unknown state: the pool must not hand it out again.
      client.release(broken || undefined);
    }
    if (tx.outbox) await this.outboxDelivery?.();
    await runAfterCommit(tx.afterCommit);
    return result;
  }

  /** Ends the pool once; closing again is nothing (a controller closed, then disposed). */
  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }

  private query(sql: string, params: readonly unknown[]): Promise<pg.QueryResult> {
    const text = toPostgresPlaceholders(sql);
    const tx = this.context.getStore();
    // A lone statement is its own transaction: run again after a deadlock, like a whole one (pg-store.ts).
    if (!tx?.open) return retryTransientConflicts(() => this.pool.query(text, params as unknown[]));
    // Queries a transaction starts together (Promise.all) go one after another on its connection.
    const run = tx.last.then(() => tx.client.query(text, params as unknown[]));
    tx.last = run.catch(() => undefined);
    return run;
  }

  private async savepoint<T>(tx: Transaction, fn: () => Promise<T>): Promise<T> {
    const name = `s${++tx.savepoints}`;
    const queued = tx.afterCommit.length;
    await tx.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await tx.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      await tx.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      await tx.client.query(`RELEASE SAVEPOINT ${name}`);
      // What the undone part asked to run after commit belongs to writes that did not happen.
      tx.afterCommit.length = queued;
      throw err;
    }
  }
}
