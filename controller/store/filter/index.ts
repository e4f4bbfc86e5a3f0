/**
 * OpenZiti's list filter language (`?filter=`), as the ZAC admin console and the `ziti` CLI send it, parsed and
 * compiled to parameterised SQLite (or PostgreSQL) SQL:
 *
 *   name contains "" sort by name asc skip 0 limit 25
 *   true limit 1
 *   (type = "Dial" or name icontains "web") and createdAt >= datetime(2021-01-01T00:00:00Z)
 *   id in ["a", "b"] and not isAdmin
 *
 * See parser.ts for the grammar and compile.ts for the SQL. Errors are 400 INVALID_FILTER naming the 1-based
 * character position and what was expected there.
 */
import { compileParsed, type FilterDialect } from './compile.js';
import { parseFilter } from './parser.js';
import type { CompiledFilter, FilterField } from './types.js';

export type { CompiledFilter, FilterField } from './types.js';
export type { FilterDialect } from './compile.js';
export { MAX_FILTER_DEPTH, MAX_FILTER_LENGTH } from './errors.js';

/**
 * Compiles `filter` against the fields a list route exposes. `where` is '' for no predicate and otherwise an SQL
 * boolean expression whose `?` placeholders take `params` in order; `orderBy` is '' or `sql ASC|DESC, …` built
 * only from `FilterField.sql` (in PostgreSQL, nullable terms end `NULLS FIRST` / `NULLS LAST`). Throws `ApiError`
 * 400 INVALID_FILTER on any syntax, field or type error. `dialect` picks the SQL written; the fields must be
 * declared in the same dialect.
 */
export function compileFilter(
  filter: string,
  fields: Record<string, FilterField>,
  dialect: FilterDialect = 'sqlite',
): CompiledFilter {
  return compileParsed(filter, parseFilter(filter), fields, dialect);
}
