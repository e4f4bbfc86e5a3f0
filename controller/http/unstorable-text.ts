/**
 * Text no store can keep: the NUL character and unpaired UTF-16 surrogates. JSON can carry both (`\u0000`,
 * `\ud800`), SQLite would store them, PostgreSQL refuses them (and a reader may not survive them either), so a
 * request holding one is refused before its handler runs, the same on every backend, naming the field.
 */
import { at } from '../field-path.js';

// NUL is the point of this expression, not a slip.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_REASON =
  'must not contain the NUL character or an unpaired surrogate (\\u0000, \\ud800…)';

/**
 * Whether a JSON text may hold unstorable text once parsed: only through a `\u` escape (`\u0000`, `\ud800`…).
 * A raw NUL cannot stand in valid JSON, and text decoded from UTF-8 holds no lone surrogate. Most bodies have
 * no escape at all, and then their parsed value needs no walk.
 */
const mayHoldUnstorable = (text: string) => text.includes('\\u');

const storableBodies = new WeakSet<object>();

/** Records that `request`'s body came from JSON text that holds no unstorable text (see the walk below). */
export function noteJsonBody(request: object, text: string): void {
  if (!mayHoldUnstorable(text)) storableBodies.add(request);
}

/** The field of the first unstorable text in the request's params, query or body, or undefined. */
export function unstorableFieldOf(request: {
  params: unknown;
  query: unknown;
  body: unknown;
}): string | undefined {
  return (
    unstorableTextAt(request.params) ??
    unstorableTextAt(request.query) ??
    (storableBodies.has(request) ? undefined : unstorableTextAt(request.body))
  );
}

/** Whether any string or key inside holds unstorable text: the common answer, no, without building paths. */
function holdsUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (Array.isArray(value)) return value.some(holdsUnstorable);
  if (value && typeof value === 'object') {
    for (const key of Object.keys(value)) {
      if (UNSTORABLE.test(key) || holdsUnstorable((value as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}

/** The field (API notation) of the first string or key holding unstorable text, or undefined. */
export function unstorableTextAt(value: unknown, path = ''): string | undefined {
  return holdsUnstorable(value) ? firstUnstorableAt(value, path) : undefined;
}

function firstUnstorableAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path || 'body' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorableAt(value[i], at(path, i));
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (UNSTORABLE.test(key)) return at(path, key);
      const found = firstUnstorableAt(item, at(path, key));
      if (found) return found;
    }
  }
  return undefined;
}
