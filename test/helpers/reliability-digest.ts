/**
 * A digest of everything the controller has stored, to prove a run of requests changed nothing. Every table
 * is read in full except what changes by design when nothing was written:
 * - `api_sessions.last_activity_at`: any authenticated request refreshes it (the idle timeout);
 * - `mfa_audit_events`: every refused MFA code is audited, so hostile codes add rows.
 */
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

const SKIPPED_TABLES = new Set(['mfa_audit_events', 'sqlite_sequence']);
const SKIPPED_COLUMNS: Record<string, string[]> = { api_sessions: ['last_activity_at'] };

export function storeDigest(db: Database.Database): { digest: string; rows: Record<string, number> } {
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
        `SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM ${table} ORDER BY ${columns.map((c) => `"${c}"`).join(', ')}`,
      )
      .raw()
      .all();
    rows[table] = all.length;
    hash.update(`${table}\n${JSON.stringify(all)}\n`);
  }
  return { digest: hash.digest('hex'), rows };
}
