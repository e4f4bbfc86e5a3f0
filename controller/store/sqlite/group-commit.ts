import type { Db } from '../database.js';

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: write jobs queued during one turn of the event loop run in a single SQLite transaction,
 * each in its own savepoint, so fifty concurrent posture reports cost one fsync instead of fifty. A job that
 * throws rolls back only its savepoint and rejects only its own promise. Every promise settles after the
 * commit, so a request is still answered only once its writes are durable.
 */
export class GroupCommit {
  private queue: Job[] = [];
  /**
   * One transaction function for every job, made once: better-sqlite3 builds four wrappers per
   * `db.transaction(fn)` call, which cost more than a small job itself. Nested, it runs as a savepoint.
   */
  private readonly atomically: (fn: () => unknown) => unknown;

  constructor(
    private readonly db: Db,
    private readonly onRollback: () => void,
  ) {
    this.atomically = db.transaction((fn: () => unknown) => fn());
  }

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const jobs = this.queue;
    this.queue = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.atomically(() => {
        for (const job of jobs) {
          try {
            // Nested inside the outer transaction, better-sqlite3 runs this as a savepoint.
            outcomes.push({ ok: true, value: this.atomically(job.fn) });
          } catch (error) {
            this.onRollback();
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      this.onRollback();
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
