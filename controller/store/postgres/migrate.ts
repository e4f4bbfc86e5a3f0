/**
 * Brings a PostgreSQL database's schema up to date. Several controllers may start at once against one
 * database: each takes the same session-level advisory lock first, so one migrates while the others wait, and
 * each then finds the migrations already recorded and applies none. A session lock (not a transaction one)
 * because every migration commits on its own; if the process dies, its connection closes and the lock goes.
 */
import type pg from 'pg';
import { POSTGRES_MIGRATIONS } from './migrations.js';

/**
 * The advisory lock key held while migrating: "postern" in ASCII as a number, unlikely to be another
 * application's key in a shared database. A string, as it exceeds JavaScript's safe integers.
 */
export const MIGRATION_LOCK_KEY = '31647739056321134';

/**
 * Applies every migration of `migrations` (by default the schema's own) that `schema_migrations` does not
 * record, in order, each in its own transaction together with its record. A migration that fails rolls back
 * and is thrown; the ones before it stay applied.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly string[] = POSTGRES_MIGRATIONS,
): Promise<void> {
  const client = await pool.connect();
  let healthy = true;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      await applyPending(client, migrations);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => {
        healthy = false;
      });
    }
  } catch (err) {
    healthy = false;
    throw err;
  } finally {
    // A connection in doubt is closed, not pooled: closing it also drops the lock if the unlock failed.
    client.release(!healthy);
  }
}

/** Runs with the lock held, so creating the bookkeeping table cannot race another controller's. */
async function applyPending(client: pg.PoolClient, migrations: readonly string[]): Promise<void> {
  await client.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)`,
  );
  const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
  const applied = new Set(rows.map((r) => r.version));
  for (const [index, sql] of migrations.entries()) {
    const version = index + 1;
    if (applied.has(version)) continue;
    await client.query('BEGIN');
    try {
      // One query, many statements: no parameters, so node-postgres sends it as a simple query.
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())', [version]);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
}
