import { ApiError } from '../../api-error.js';

/** Longest filter accepted; the query-string schema already stops at this length. */
export const MAX_FILTER_LENGTH = 1024;
/** Deepest nesting of parentheses and `not` accepted, so no input can exhaust the stack. */
export const MAX_FILTER_DEPTH = 32;

/** 400 INVALID_FILTER whose message names the 1-based character position and what went wrong there. */
export function filterError(filter: string, position: number, problem: string): ApiError {
  const reason = `at position ${position}: ${problem}`;
  return new ApiError(400, 'INVALID_FILTER', `Invalid filter ${reason}`, {
    field: 'filter',
    reason,
    value: filter.length > MAX_FILTER_LENGTH ? `${filter.slice(0, MAX_FILTER_LENGTH)}…` : filter,
  });
}
