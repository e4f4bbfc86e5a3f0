/**
 * Runs repository steps (statement.ts) on SQLite, synchronously: better-sqlite3 answers each statement at once,
 * so a whole repository call completes before it returns, as SQLite's hot paths need (no promise per statement).
 */
import type Database from 'better-sqlite3';
import type { Db } from '../database.js';
import type { Effect, Sql } from './statement.js';

/** Statements prepared once per distinct text, per database. */
const preparedByDb = new WeakMap<Db, Map<string, Database.Statement>>();
/** Bounded: SQL that varies with its inputs (filters, page sizes) must not grow the map without end. */
const MAX_PREPARED = 512;

export function runSync<T>(db: Db, step: Sql<T>): T {
  let next = step.next();
  while (!next.done) {
    let answer: unknown;
    try {
      answer = perform(db, next.value);
    } catch (err) {
      next = step.throw(err);
      continue;
    }
    next = step.next(answer);
  }
  return next.value;
}

function perform(db: Db, effect: Effect): unknown {
  switch (effect.kind) {
    case 'rows': {
      const statement = prepared(db, effect.sql);
      if (statement.reader) return statement.all(...effect.params);
      statement.run(...effect.params);
      return [];
    }
    case 'run':
      return prepared(db, effect.sql).run(...effect.params).changes;
    case 'atomic':
      // better-sqlite3 nests a transaction inside an open one as a savepoint
      return db.transaction(() => runSync(db, effect.body()))();
    case 'guarded':
      return db.inTransaction
        ? db.transaction(() => runSync(db, effect.body()))()
        : runSync(db, effect.body());
    case 'outboxWritten':
      // the outbox triggers call back through postern_outbox_written (database.ts)
      return undefined;
  }
}

function prepared(db: Db, sql: string): Database.Statement {
  let cache = preparedByDb.get(db);
  if (!cache) preparedByDb.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) {
    if (cache.size >= MAX_PREPARED) cache.clear();
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}
