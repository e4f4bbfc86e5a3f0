/**
 * The list parameters as routes hand them over. A route whose schema leaves `filter` or `sort` undeclared
 * passes a repeated parameter on as an array (`?filter=a&filter=b`): that is a 400 naming it, never a crash.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../controller/api-error.js';
import { pageLimit, parseListQuery } from '../../../controller/http/list-query.js';

function refusal(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('not refused');
}

describe('parseListQuery', () => {
  it('clamps a limit above 500 to a full page, as OpenZiti does; below -1 is refused', () => {
    expect(parseListQuery({ limit: 1000 }).limit).toBe(500);
    expect(parseListQuery({ limit: 501 }, { fullGrammar: true }).limit).toBe(500);
    expect(pageLimit(5000)).toBe(500);
    expect(pageLimit(-1)).toBe(500);
    expect(refusal(() => parseListQuery({ limit: -2 })).cause).toMatchObject({ field: 'limit' });
  });

  it('takes OpenZiti defaults: 10 rows, -1 as a full page, the lookups on small lists', () => {
    expect(parseListQuery({})).toEqual({ limit: 10, offset: 0 });
    expect(parseListQuery({ limit: -1, offset: 5 })).toEqual({ limit: 500, offset: 5 });
    expect(parseListQuery({ filter: 'name contains "crm"' })).toMatchObject({ limit: 10, offset: 0 });
  });

  it.each(['filter', 'sort'] as const)('refuses a repeated %s by name', (name) => {
    const error = refusal(() => parseListQuery({ [name]: ['a', ''] } as never, { fullGrammar: true }));
    expect(error.status).toBe(400);
    expect(error.cause).toMatchObject({ field: name, reason: 'must be a single string' });
  });
});
