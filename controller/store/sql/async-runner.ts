/** Runs repository steps (statement.ts) on PostgreSQL, one statement (one round trip) at a time. */
import type { PgDatabase } from '../postgres/pg-database.js';
import type { Effect, Sql } from './statement.js';

export async function runAsync<T>(db: PgDatabase, step: Sql<T>): Promise<T> {
  let next = step.next();
  while (!next.done) {
    let answer: unknown;
    try {
      answer = await perform(db, next.value);
    } catch (err) {
      next = step.throw(err);
      continue;
    }
    next = step.next(answer);
  }
  return next.value;
}

function perform(db: PgDatabase, effect: Effect): Promise<unknown> {
  switch (effect.kind) {
    case 'rows':
      return db.rows(effect.sql, effect.params);
    case 'run':
      return db.run(effect.sql, effect.params);
    case 'atomic':
      // its own transaction, or a savepoint inside the open one (PgDatabase.transaction nests that way)
      return db.transaction(() => runAsync(db, effect.body()));
    case 'guarded':
      return db.inTransaction()
        ? db.transaction(() => runAsync(db, effect.body()))
        : runAsync(db, effect.body());
    case 'outboxWritten':
      return db.outboxWritten();
  }
}
