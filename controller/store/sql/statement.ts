/**
 * One store code for both databases. A repository method is written once, as a generator that yields the
 * statements it needs (`rows`, `run`, `atomic`) and receives their answers; a runner carries them out on a
 * database: SQLite's synchronously (better-sqlite3), so its fast paths stay synchronous and answer an already
 * settled promise, PostgreSQL's asynchronously (node-postgres). What differs between the two SQL dialects
 * (placeholders aside: both take `?`) comes from the `Dialect` the repository is built with (dialect.ts).
 *
 * A method may answer without yielding at all (a cache hit): no statement, no round trip, on either database.
 */

/** What a repository asks of its database, one step at a time. */
export type Effect =
  /** the rows a statement answers (a write with RETURNING included) */
  | { readonly kind: 'rows'; readonly sql: string; readonly params: readonly unknown[] }
  /** how many rows a write touched */
  | { readonly kind: 'run'; readonly sql: string; readonly params: readonly unknown[] }
  /**
   * runs `body` all or nothing: its own transaction, or inside an open one a savepoint, so a statement of it
   * that fails (a unique key refusing a write) undoes only its part, and the caller may catch the error and
   * carry on (PostgreSQL aborts a whole transaction on a failed statement otherwise)
   */
  | { readonly kind: 'atomic'; readonly body: () => Sql<unknown> }
  /**
   * runs `body` in a savepoint when a transaction is open, and as it is otherwise: for ONE statement that may
   * fail (a unique key), which is atomic alone, so outside a transaction it costs no BEGIN and COMMIT
   */
  | { readonly kind: 'guarded'; readonly body: () => Sql<unknown> }
  /**
   * the statements before this one wrote rows of the access outbox (through the schema's triggers): SQLite's
   * triggers call back on their own; PostgreSQL's runner tells its database, which publishes them after commit
   */
  | { readonly kind: 'outboxWritten' };

/** A repository step that answers `T`: run with `runSync` (sync-runner.ts) or `runAsync` (async-runner.ts). */
export type Sql<T> = Generator<Effect, T, unknown>;

/** A piece of SQL and the values of its placeholders, in order. */
export interface Fragment {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export function* rows<R>(sql: string, params: readonly unknown[] = []): Sql<R[]> {
  return (yield { kind: 'rows', sql, params }) as R[];
}

/** The first row a statement answers, or undefined. */
export function* one<R>(sql: string, params: readonly unknown[] = []): Sql<R | undefined> {
  return (yield* rows<R>(sql, params))[0];
}

/** How many rows a write touched. */
export function* run(sql: string, params: readonly unknown[] = []): Sql<number> {
  return (yield { kind: 'run', sql, params }) as number;
}

export function* atomic<T>(body: () => Sql<T>): Sql<T> {
  return (yield { kind: 'atomic', body }) as T;
}

/** See the `guarded` effect: one statement that may fail, undone alone inside an open transaction. */
export function* guarded<T>(body: () => Sql<T>): Sql<T> {
  return (yield { kind: 'guarded', body }) as T;
}

export function* outboxWritten(): Sql<void> {
  yield { kind: 'outboxWritten' };
}

/** Whether a method's answer is a step to run (a generator) rather than a plain value. */
export function isStep(value: unknown): value is Sql<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { next?: unknown }).next === 'function' &&
    typeof (value as { throw?: unknown }).throw === 'function'
  );
}
