/**
 * A repository written once as steps (statement.ts) becomes each backend's repository here: `sqliteFace`
 * runs every step synchronously on a SQLite database (the `Sync…` interfaces of repository.ts, which the
 * SQLite store then gives their asynchronous face), `postgresFace` runs them on PostgreSQL and answers
 * promises (the `Async<Sync…>` interfaces). Methods that answer a plain value (a cache's `clearCache`) pass
 * through unchanged. Built once, eagerly, as plain objects: a Proxy would cost a lookup on every call.
 */
import type { Db } from '../database.js';
import type { PgDatabase } from '../postgres/pg-database.js';
import { methodNames } from '../method-names.js';
import { runAsync } from './async-runner.js';
import { isStep, type Sql } from './statement.js';
import { runSync } from './sync-runner.js';

/** The repository `Q` with each step-answering method answering its value at once. */
export type SyncFace<Q> = {
  [K in keyof Q]: Q[K] extends (...args: infer A) => Sql<infer R> ? (...args: A) => R : Q[K];
};

/** The repository `Q` with each step-answering method answering a promise of its value. */
export type AsyncFace<Q> = {
  [K in keyof Q]: Q[K] extends (...args: infer A) => Sql<infer R> ? (...args: A) => Promise<R> : Q[K];
};

export function sqliteFace<Q extends object>(repository: Q, db: Db): SyncFace<Q> {
  return face(repository, (step) => runSync(db, step)) as SyncFace<Q>;
}

export function postgresFace<Q extends object>(repository: Q, db: PgDatabase): AsyncFace<Q> {
  return face(repository, (step) => runAsync(db, step)) as AsyncFace<Q>;
}

function face(repository: object, runStep: (step: Sql<unknown>) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of methodNames(repository)) {
    const method = (repository as Record<string, (...args: unknown[]) => unknown>)[name]!;
    out[name] = (...args: unknown[]) => {
      const answer = method.apply(repository, args);
      return isStep(answer) ? runStep(answer) : answer;
    };
  }
  return out;
}
