/**
 * An OpenZiti filter applied to entities held in memory (the caller's services, resolved from policies rather
 * read from one table), with exactly the compiler, fields and semantics of the stored lists: the entities are
 * written to a private in-memory SQLite table shaped like the store's document tables, and the compiled
 * filter runs there. One connection per process; each call fills, reads and empties the table in one
 * synchronous step, so calls never see each other's rows.
 */
import Database from 'better-sqlite3';
import { MAX_LIMIT } from '../page.js';
import { documentFilterFields, type ExtraField } from '../repositories/document-filter.js';
import { compileFilter } from './index.js';

export interface FilterableEntity {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface InMemoryPage {
  /** the ids of the page's entities, in the filter's order (by name when it has no `sort by`) */
  ids: string[];
  totalCount: number;
  limit: number;
  offset: number;
}

const TABLE = 'entities';
let connection: Database.Database | undefined;

function db(): Database.Database {
  if (!connection) {
    connection = new Database(':memory:');
    connection.exec(
      `CREATE TABLE ${TABLE} (id TEXT PRIMARY KEY, name TEXT NOT NULL, doc TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`,
    );
  }
  return connection;
}

/**
 * One page of `entities` by `filter` (its predicate, `sort by`, `skip` and `limit`; the query's page where the
 * filter has none). `extras` are the document fields the stored list of the same kind declares. Throws the
 * stored lists' 400 INVALID_FILTER for a filter they would refuse.
 */
export function filterInMemory(
  entities: readonly FilterableEntity[],
  filter: string,
  page: { limit: number; offset: number },
  kind: { hasRoleAttributes: boolean; extras?: readonly ExtraField[] },
): InMemoryPage {
  const compiled = compileFilter(
    filter,
    documentFilterFields('sqlite', TABLE, kind.hasRoleAttributes, kind.extras),
  );
  const limit = Math.min(compiled.limit ?? page.limit, MAX_LIMIT);
  const offset = compiled.offset ?? page.offset;
  const where = compiled.where ? `WHERE ${compiled.where}` : '';
  const tieBreak = /\bDESC$/i.test(compiled.orderBy) ? 'DESC' : 'ASC';
  const order = compiled.orderBy ? `${compiled.orderBy}, ${TABLE}.id ${tieBreak}` : `${TABLE}.name`;
  const conn = db();
  return conn.transaction(() => {
    const insert = conn.prepare(
      `INSERT OR IGNORE INTO ${TABLE} (id, name, doc, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
    );
    try {
      for (const e of entities) {
        const { id, name, createdAt, updatedAt, ...rest } = e as FilterableEntity & Record<string, unknown>;
        insert.run(id, name, JSON.stringify(rest), createdAt.toISOString(), updatedAt.toISOString());
      }
      const total = conn.prepare(`SELECT COUNT(*) AS n FROM ${TABLE} ${where}`).get(...compiled.params) as {
        n: number;
      };
      const rows = conn
        .prepare(`SELECT id FROM ${TABLE} ${where} ORDER BY ${order} LIMIT ? OFFSET ?`)
        .all(...compiled.params, limit, offset) as { id: string }[];
      return { ids: rows.map((r) => r.id), totalCount: total.n, limit, offset };
    } finally {
      conn.prepare(`DELETE FROM ${TABLE}`).run();
    }
  })();
}
