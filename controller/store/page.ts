/** The most rows one page of any list holds (OpenZiti's limit: 500). */
export const MAX_LIMIT = 500;

/** One page of a list. */
export interface Page<T> {
  items: T[];
  totalCount: number;
  /** the page size and start the filter's own `limit`/`skip` chose, when it had them */
  limit?: number;
  offset?: number;
}

/** What a list call asks for: a page, and the lookups that narrow it. */
export interface ListQuery {
  limit: number;
  offset: number;
  /** exact name match */
  name?: string;
  /** case-insensitive substring of the name */
  nameContains?: string;
  /** an OpenZiti filter (`name contains "x" sort by name skip 0 limit 25`), for repositories that compile it */
  filter?: string;
}
