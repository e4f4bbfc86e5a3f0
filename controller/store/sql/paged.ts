/** A page of a list and the total of the whole list, read together (repositories' `list` methods). */
import { rows as rowsOf, one, type Sql } from './statement.js';

/**
 * One page and the total in one statement, so both come from one snapshot (two PostgreSQL statements could
 * straddle another controller's write) and one round trip. The total rides on every row; a page without rows
 * (past the end, or nothing matched) has none to carry it, and is then counted on its own. `where` is a
 * WHERE clause (or empty) with its parameters; names in it should be table-qualified, since the count
 * repeats it in a subquery.
 */
export function* pageWithTotal<R>(
  table: string,
  columns: string,
  where: { sql: string; params: readonly unknown[] },
  order: string,
  limit: number,
  offset: number,
): Sql<{ rows: R[]; total: number }> {
  const count = `SELECT CAST(count(*) AS INTEGER) FROM ${table} ${where.sql}`;
  const page = yield* rowsOf<R & { total_count: number }>(
    `SELECT ${columns}, (${count}) AS total_count FROM ${table} ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`,
    [...where.params, ...where.params, limit, offset],
  );
  if (page.length > 0) return { rows: page, total: Number(page[0]!.total_count) };
  const total = yield* one<{ n: number }>(`SELECT (${count}) AS n`, where.params);
  return { rows: [], total: Number(total?.n ?? 0) };
}
