import { ApiError } from '../api-error.js';
import type { ListQuery } from '../store/repository.js';
import { MAX_LIMIT } from '../store/page.js';
import { parseFilter as parseFilterGrammar } from '../store/filter/parser.js';

const DEFAULT_LIMIT = 10;

/**
 * The rows a page holds for a `limit` the schema let through: -1 as many as a page may hold, 0 or none the
 * default, and more than a page may hold a full page: OpenZiti's controller clamps a larger limit to its
 * maximum rather than refusing it (models/base_model.go), and its console asks for `limit=1000`.
 */
export const pageLimit = (requested: number | undefined): number =>
  requested === -1 ? MAX_LIMIT : Math.min(requested || DEFAULT_LIMIT, MAX_LIMIT);
/** Past any real row count, and small enough to stay an integer all the way into SQLite. */
const MAX_OFFSET = 1_000_000_000;

/**
 * Reads `limit`, `offset` and `filter` the way OpenZiti does (default 10, at most 500: more is clamped to 500). With `fullGrammar`
 * the filter is passed on whole, for the repository to compile; otherwise it takes the lookups clients make
 * on the smaller lists: `name = "x"`, `name contains "x"` and `id = "x"`.
 */
export function parseListQuery(
  q: {
    limit?: number;
    offset?: number;
    filter?: string;
    sort?: string;
  },
  options: { fullGrammar?: boolean } = {},
): ListQuery & { id?: string } {
  // `limit=-1` is OpenZiti's "every row" (its console fills pickers and CSV exports so): at most MAX_LIMIT here,
  // and a limit above MAX_LIMIT is a full page, as OpenZiti clamps it (pageLimit).
  const limit = q.limit === undefined ? DEFAULT_LIMIT : q.limit > MAX_LIMIT ? MAX_LIMIT : q.limit;
  const offset = q.offset ?? 0;
  if (!Number.isInteger(limit) || limit < -1) {
    throw new ApiError(400, 'INVALID_PAGINATION', `limit must be -1 or more`, {
      field: 'limit',
      reason: 'out of range',
      value: q.limit,
    });
  }
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET) {
    throw new ApiError(400, 'INVALID_PAGINATION', `offset must be 0..${MAX_OFFSET}`, {
      field: 'offset',
      reason: 'out of range',
      value: q.offset,
    });
  }
  // A route whose schema does not declare them passes repeated parameters on as arrays: refuse, never crash.
  for (const name of ['filter', 'sort'] as const)
    if (q[name] !== undefined && typeof q[name] !== 'string')
      throw new ApiError(400, 'COULD_NOT_VALIDATE', `${name} must be given once, as text`, {
        field: name,
        reason: 'must be a single string',
      });
  const query: ListQuery & { id?: string } = { limit: pageLimit(limit), offset };
  let filter = q.filter === undefined || q.filter.trim() === '' ? undefined : q.filter;
  // OpenZiti's `sort` parameter (`sort=name asc`, as its console sends it) orders the list when the filter
  // has no `sort by` of its own.
  if (options.fullGrammar && q.sort?.trim() && !(filter && parseFilterGrammar(filter).sort.length > 0))
    filter = `${filter ?? ''} sort by ${q.sort}`;
  if (filter === undefined) return query;
  // Lists stored as documents compile the whole grammar (controller/store/filter); the rest take the lookups.
  if (options.fullGrammar) return { ...query, filter };
  Object.assign(query, parseFilter(filter));
  return query;
}

function parseFilter(filter: string): Partial<ListQuery & { id: string }> {
  const m = /^\s*(name|id)\s*(=|i?contains)\s*"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  if (!m) {
    throw new ApiError(
      400,
      'INVALID_FILTER',
      'Supported filters: name = "x", name contains "x" (or icontains), id = "x"',
      {
        field: 'filter',
        reason: 'unsupported filter expression',
        value: filter,
      },
    );
  }
  const field = m[1]!.toLowerCase();
  const op = m[2]!.toLowerCase();
  const value = m[3]!.replace(/\\(.)/g, '$1');
  if (field === 'id') {
    if (op !== '=')
      throw new ApiError(400, 'INVALID_FILTER', 'id supports only =', {
        field: 'filter',
        reason: 'id supports only =',
      });
    return { id: value };
  }
  return op === '=' ? { name: value } : { nameContains: value };
}
