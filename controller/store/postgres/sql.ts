/**
 * The store's SQL is written with `?` placeholders for both databases (the filter compiler, IN lists, the
 * repositories); PostgreSQL numbers its placeholders instead.
 *
 * This is a plain replacement, not a parser, and that is safe because our SQL never contains a literal `?`:
 * values always travel as parameters (never inside quoted SQL text), and the jsonb operators spelled with a
 * question mark (`?`, `?|`, `?&`) are never used; write `jsonb_exists(…)` or `@>` instead. The filter test
 * checks every compiled filter for it.
 */
export function toPostgresPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
