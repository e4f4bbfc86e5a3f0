/** The JSON body's nesting limit: exact at the limit, strings ignored, and bracket-rich shallow text let through. */
import { describe, expect, it } from 'vitest';
import { nestingTooDeepAt } from '../../../controller/http/json-body.js';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('nestingTooDeepAt', () => {
  it('lets the limit through and refuses one deeper, at the bracket that goes over', () => {
    expect(nestingTooDeepAt(nested(4), 4)).toBeUndefined();
    expect(nestingTooDeepAt(nested(5), 4)).toBe(4);
    expect(nestingTooDeepAt(`{"a":${nested(5)}}`, 4)).toBe(8);
  });

  it('counts brackets in strings for nothing, however many there are', () => {
    expect(nestingTooDeepAt(`{"a":"${'['.repeat(100)}"}`, 4)).toBeUndefined();
    expect(nestingTooDeepAt(`["\\"[[[[[[", []]`, 2)).toBeUndefined();
  });

  it('lets many shallow brackets through: more than the limit in all, none deep', () => {
    const wide = JSON.stringify(Array.from({ length: 50 }, () => ({ a: [1] })));
    expect(nestingTooDeepAt(wide, 3)).toBeUndefined();
    // `[[{"a":[1]}…`: the fourth level opens at index 7.
    expect(nestingTooDeepAt(`[${wide}]`, 3)).toBe(7);
  });
});
