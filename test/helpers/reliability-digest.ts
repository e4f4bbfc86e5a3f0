/**
 * A digest of everything the controller has stored, to prove a run of requests changed nothing. Every table
 * is read in full except what changes by design when nothing was written:
 * - `api_sessions.last_activity_at`: any authenticated request refreshes it (the idle timeout);
 * - `mfa_audit_events`: every refused MFA code is audited, so hostile codes add rows;
 * - `attempt_counters` (PostgreSQL): hostile sign-ins, codes and tokens count against the attempt limits;
 * - the audit trail's events of signing in and out and of refused MFA codes (`auth.*`, `api-session.ended`,
 *   `mfa.code-refused`): each is on record by design, whatever else the request did.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Store } from '../../controller/store/repository.js';
import { SqliteStore } from '../../controller/store/sqlite-store.js';
import type { PgStore } from '../../controller/store/postgres/pg-store.js';

const SKIPPED_TABLES = new Set([
  'mfa_audit_events',
  'attempt_counters',
  'sqlite_sequence',
  'schema_migrations',
]);
const SKIPPED_COLUMNS: Record<string, string[]> = { api_sessions: ['last_activity_at'] };
const BY_DESIGN = `'api-session.ended', 'mfa.code-refused'`;
/** Rows left out, per dialect: the condition a row must meet to be read. */
const KEPT_ROWS: Record<string, { sqlite: string; postgres: string }> = {
  audit_events: {
    sqlite: `json_extract(doc, '$.type') NOT LIKE 'auth.%' AND json_extract(doc, '$.type') NOT IN (${BY_DESIGN})`,
    postgres: `doc->>'type' NOT LIKE 'auth.%' AND doc->>'type' NOT IN (${BY_DESIGN})`,
  },
};
const where = (table: string, dialect: 'sqlite' | 'postgres') =>
  KEPT_ROWS[table] ? `WHERE ${KEPT_ROWS[table][dialect]}` : '';

export interface StoreDigest {
  digest: string;
  rows: Record<string, number>;
}

/** The digest of whichever backend the controller runs on. */
export async function storeDigest(store: Store): Promise<StoreDigest> {
  return store instanceof SqliteStore ? sqliteDigest(store.db) : postgresDigest(store as PgStore);
}

async function postgresDigest(store: PgStore): Promise<StoreDigest> {
  const tables = (
    await store.db.rows<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  )
    .map((t) => t.name)
    .filter((t) => !SKIPPED_TABLES.has(t));
  const hash = createHash('sha256');
  const rows: Record<string, number> = {};
  for (const table of tables) {
    const columns = (
      await store.db.rows<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = ? ORDER BY ordinal_position`,
        [table],
      )
    )
      .map((c) => c.name)
      .filter((c) => !(SKIPPED_COLUMNS[table] ?? []).includes(c));
    const list = columns.map((c) => `"${c}"::text`).join(', ');
    const all = await store.db.rows(
      `SELECT ${list} FROM ${table} ${where(table, 'postgres')} ORDER BY ${list}`,
    );
    rows[table] = all.length;
    hash.update(`${table}\n${JSON.stringify(all)}\n`);
  }
  return { digest: hash.digest('hex'), rows };
}

function sqliteDigest(db: Database.Database): StoreDigest {
  const tables = (
    db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      )
      .all() as { name: string }[]
  )
    .map((t) => t.name)
    .filter((t) => !SKIPPED_TABLES.has(t));
  const hash = createHash('sha256');
  const rows: Record<string, number> = {};
  for (const table of tables) {
    const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[])
      .map((c) => c.name)
      .filter((c) => !(SKIPPED_COLUMNS[table] ?? []).includes(c));
    const all = db
      .prepare(
        `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table} ${where(table, 'sqlite')} ORDER BY ${columns.map((c) => `"${c}"`).join(', ')}`,
      )
      .raw()
      .all();
    rows[table] = all.length;
    hash.update(`${table}\n${JSON.stringify(all)}\n`);
  }
  return { digest: hash.digest('hex'), rows };
}
