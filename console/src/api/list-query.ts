/**
 * One page of a list, asked of the API in its own filter grammar, e.g.
 * `name icontains "alice" sort by name asc skip 25 limit 25`: the search, the order and the page are the
 * server's work, so a list of 10,000 identities costs the browser one page.
 */
import type { Envelope } from '../../../src/api/envelopes.js';
import { api } from './client.js';

export type SortDirection = 'asc' | 'desc';

export interface ListRequest {
  /** typed into the search box: names containing it, ignoring case */
  search: string;
  sortBy: string;
  direction: SortDirection;
  offset: number;
  limit: number;
  /** more conditions in the grammar, joined with `and` (e.g. `typeId = "MFA"`) */
  where?: string;
}

export interface Page<T> {
  items: T[];
  totalCount: number;
}

/** A string literal of the grammar: double-quoted, with `"` and `\` escaped. */
export function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

export function filterOf(request: ListRequest): string {
  const conditions = [
    request.search.trim() ? `name icontains ${quoted(request.search.trim())}` : '',
    request.where ?? '',
  ].filter(Boolean);
  const predicate = conditions.length ? `${conditions.join(' and ')} ` : '';
  return `${predicate}sort by ${request.sortBy} ${request.direction} skip ${request.offset} limit ${request.limit}`;
}

/** A page of a collection that compiles the full grammar (identities, services, policies, checks, …). */
export async function listPage<T>(collection: string, request: ListRequest): Promise<Page<T>> {
  const answer = await api.get<T[]>(`/${collection}?filter=${encodeURIComponent(filterOf(request))}`);
  return pageOf(answer);
}

/** A page of a list that takes only `limit` and `offset` (and `name contains`). */
export async function simplePage<T>(path: string, offset: number, limit: number): Promise<Page<T>> {
  const join = path.includes('?') ? '&' : '?';
  return pageOf(await api.get<T[]>(`${path}${join}limit=${limit}&offset=${offset}`));
}

function pageOf<T>(answer: Envelope<T[]>): Page<T> {
  return { items: answer.data, totalCount: answer.meta.pagination?.totalCount ?? answer.data.length };
}
