/**
 * What the store's SQL says differently on SQLite and PostgreSQL, in one place. Repositories build their
 * statements once, in their constructor, from the dialect they are given; everything else (`?` placeholders,
 * `INSERT … ON CONFLICT … DO UPDATE SET x = excluded.x`, `RETURNING`, window functions, `CAST(count(*) AS
 * INTEGER)`) both databases read alike.
 */
import type { Fragment } from './statement.js';

export type DialectName = 'sqlite' | 'postgres';

/** A unique key as each database names it when it refuses a write. */
export interface UniqueKey {
  /** PostgreSQL's constraint or index name (and SQLite's, for an index on an expression) */
  readonly index: string;
  /** SQLite's "table.column[, table.column]" for an index on columns */
  readonly columns: string;
}

export interface Dialect {
  readonly name: DialectName;
  /** `column` is one of `values` (any number of them, one parameter) */
  oneOf(column: string, values: readonly string[]): Fragment;
  /**
   * A relation of `rows`, one parameter per column (any number of rows), to insert or join from:
   * `FROM ${relation.sql}` gives the columns `names` under the alias `alias`, all as text.
   */
  relation(alias: string, names: readonly string[], rows: readonly (readonly unknown[])[]): Fragment;
  /** the placeholder of an entity document (`JSON.stringify`'d by the caller) */
  readonly documentParam: string;
  /** an entity document column as the driver answers it (SQLite: text; PostgreSQL parses jsonb) */
  document(value: unknown): Record<string, unknown>;
  /** `FOR UPDATE`: locks the rows a read will change, until commit (SQLite's transactions hold the whole file) */
  readonly forUpdate: string;
  /** `FOR UPDATE SKIP LOCKED`: as above, passing over rows another transaction holds */
  readonly forUpdateSkipLocked: string;
  /** which of `keys` a database error says was violated, if it is a unique violation of one of them */
  violated<K extends UniqueKey>(err: unknown, keys: readonly K[]): K | undefined;
  /**
   * the binary value (SQLite blob, PostgreSQL bytea) of a hex text expression: `relation` carries every column
   * as text, and a Buffer has no text form both databases read back as its bytes (MFA recovery codes)
   */
  blobFromHex(expression: string): string;
  /**
   * Writes that go together (to several tables), in as few statements as the database takes them: PostgreSQL
   * one (each but the last in a data-modifying WITH), so they cost one round trip and are atomic on their own;
   * SQLite's WITH holds no writes, so they stay apart (run them in `atomic`).
   */
  together(writes: readonly Fragment[]): Fragment[];
  /**
   * A moment `?` milliseconds from now (negative: before now) on the DATABASE's clock, as the event delivery
   * queue's time columns hold it: milliseconds since the epoch on SQLite (migration 17), timestamptz on
   * PostgreSQL (migration 10). The database's clock, not the caller's, because instances sharing a PostgreSQL
   * database may disagree on the time; on SQLite the database's clock is this host's. Compare it with the
   * same columns only (on SQLite it is a number, not the ISO text of the entity tables).
   */
  readonly msFromNow: string;
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  oneOf: (column, values) => ({
    sql: `${column} IN (SELECT value FROM json_each(?))`,
    params: [JSON.stringify(values)],
  }),
  relation: (alias, names, rows) => ({
    sql: `(SELECT ${names.map((n, i) => `CAST(value ->> ${i} AS TEXT) AS ${n}`).join(', ')} FROM json_each(?)) AS ${alias}`,
    params: [JSON.stringify(rows)],
  }),
  documentParam: '?',
  document: (value) => JSON.parse(value as string) as Record<string, unknown>,
  forUpdate: '',
  forUpdateSkipLocked: '',
  violated: (err, keys) => {
    const { code, message } = err as { code?: unknown; message?: unknown };
    if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return undefined;
    if (typeof message !== 'string') return undefined;
    // "UNIQUE constraint failed: table.a, table.b" or "UNIQUE constraint failed: index 'name'"
    const named = /index '([^']+)'/.exec(message)?.[1];
    const columns = /constraint failed: (.+)$/.exec(message)?.[1];
    return keys.find((k) => (named ? k.index === named : k.columns === columns));
  },
  blobFromHex: (expression) => `unhex(${expression})`,
  together: (writes) => [...writes],
  // 'subsec': milliseconds, as Date.now(); 'now' is one moment for the whole statement
  msFromNow: `(CAST(unixepoch('subsec') * 1000 AS INTEGER) + ?)`,
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  oneOf: (column, values) => ({ sql: `${column} = ANY(?::text[])`, params: [values] }),
  relation: (alias, names, rows) => ({
    sql: `unnest(${names.map(() => '?::text[]').join(', ')}) AS ${alias}(${names.join(', ')})`,
    params: names.map((_, i) => rows.map((row) => (row[i] === null ? null : String(row[i])))),
  }),
  // a string cast in the SQL: node-postgres would send an array-valued document as a SQL array
  documentParam: '?::jsonb',
  document: (value) => value as Record<string, unknown>,
  forUpdate: 'FOR UPDATE',
  forUpdateSkipLocked: 'FOR UPDATE SKIP LOCKED',
  violated: (err, keys) => {
    const { code, constraint } = err as { code?: unknown; constraint?: unknown };
    if (code !== '23505' || typeof constraint !== 'string') return undefined;
    return keys.find((k) => k.index === constraint);
  },
  blobFromHex: (expression) => `decode(${expression}, 'hex')`,
  together: (writes) =>
    writes.length < 2
      ? [...writes]
      : [
          {
            // the placeholders stay in the order of the writes, as their parameters
            sql: `WITH ${writes
              .slice(0, -1)
              .map((w, i) => `write_${i} AS (${w.sql})`)
              .join(', ')} ${writes.at(-1)!.sql}`,
            params: writes.flatMap((w) => w.params),
          },
        ],
  // clock_timestamp(), not now(): now() is when the enclosing transaction began, which may be a while ago
  msFromNow: `(clock_timestamp() + ?::double precision * interval '1 millisecond')`,
};
