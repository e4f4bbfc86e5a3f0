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
