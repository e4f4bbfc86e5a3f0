/**
 * Text no store can keep: the NUL character and unpaired UTF-16 surrogates. JSON can carry both (`\u0000`,
 * `\ud800`), SQLite would store them, PostgreSQL refuses them (and a reader may not survive them either), so a
 * request holding one is refused before its handler runs, the same on every backend, naming the field.
 */
import { at } from './field-path.js';

// NUL is the point of this expression, not a slip.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_REASON =
  'must not contain the NUL character or an unpaired surrogate (\\u0000, \\ud800…)';

/** The field (API notation) of the first string or key holding unstorable text, or undefined. */
export function unstorableTextAt(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path || 'body' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextAt(value[i], at(path, i));
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return at(path, key);
      const found = unstorableTextAt(item, at(path, key));
      if (found) return found;
    }
  }
  return undefined;
}
