/** What a list route declares about one filterable field. */
export interface FilterField {
  /** SQL expression for the field, e.g. 'name', 'id', "json_extract(doc, '$.createdAt')" — written by the caller, never from input */
  sql: string;
  type: 'string' | 'number' | 'boolean' | 'datetime';
  /**
   * optional: a custom compiler for set-valued fields such as roleAttributes (given operator and values, returns
   * {sql, params}). `op` is one of `=`, `!=`, `<`, `<=`, `>`, `>=`, `contains`, `icontains`, `startswith`,
   * `endswith`, `in`, `between` (each of the last six may be prefixed `not `), `is null`, `is not null`, or
   * `isEmpty`; a comparison written on `anyOf(field)` / `allOf(field)` arrives prefixed `anyOf ` / `allOf `
   * (e.g. `anyOf =`). `values` are already type-checked against `type`: strings, numbers, booleans, and
   * datetimes as ISO-8601 UTC strings. The returned SQL is wrapped in parentheses.
   */
  custom?: (op: string, values: unknown[]) => { sql: string; params: unknown[] };
  /**
   * optional: the expression is never NULL (a NOT NULL column). SQLite ignores it. The PostgreSQL dialect then
   * sorts by it without NULLS FIRST / NULLS LAST, which would only stop a plain index from serving the order.
   */
  notNull?: boolean;
}

export interface CompiledFilter {
  /** '' when no predicate, else an SQL boolean expression with ? placeholders */
  where: string;
  /** values in placeholder order */
  params: unknown[];
  /** '' or e.g. 'name ASC, id DESC' built only from FilterField.sql strings */
  orderBy: string;
  /** from `limit n` (undefined when absent or `limit none`) */
  limit?: number;
  /** from `skip n` */
  offset?: number;
}
