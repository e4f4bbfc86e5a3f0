/**
 * One page of a list. Its own module so that repositories defined beside their feature (MFA, posture) can
 * use it without importing the store's interface, which imports them: no import cycle.
 */
export interface Page<T> {
  items: T[];
  totalCount: number;
  /** the page size and start the filter's own `limit`/`skip` chose, when it had them */
  limit?: number;
  offset?: number;
}
