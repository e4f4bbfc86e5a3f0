/**
 * Validation and normalisation helpers shared by the check modules. Everything here accepts `unknown`
 * because request bodies are arbitrary JSON: a helper records a problem and returns undefined, it never throws.
 */
import { OS_TYPES, type FieldProblem, type OsType } from '../../posture-model.js';
import type { ParseMode } from './check-module.js';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How a wrong value is named in a problem reason: "got null", "got a number". */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}

/** Lower-case with spaces, `_` and `-` dropped, so `Windows Server`, `WINDOWS_SERVER` and `windowsserver` meet. */
export function osKey(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, '');
}

const OS_BY_KEY = new Map<string, OsType>(OS_TYPES.map((t) => [osKey(t), t]));

/** The canonical OS_TYPES spelling of an OS name in any case (`WINDOWS`, `MacOS`, `Windows Server`), or null. */
export function parseOsType(value: unknown): OsType | null {
  return typeof value === 'string' ? (OS_BY_KEY.get(osKey(value)) ?? null) : null;
}

export const OS_TYPE_LIST = OS_TYPES.join(', ');

/** Lower-case and drop every non-hex character: OpenZiti's clean-up of reported MACs, hashes and fingerprints. */
export function normaliseHex(text: string): string {
  return text.toLowerCase().replace(/[^0-9a-f]/g, '');
}

/** Keeps the first of equal items, in order. */
export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

/** The first of `keys` present in `body` (aliases such as `osType`/`os`); undefined counts as absent. */
export function pickField(
  body: Record<string, unknown>,
  keys: readonly string[],
): { key: string; value: unknown } | undefined {
  for (const key of keys) {
    if (Object.hasOwn(body, key) && body[key] !== undefined) return { key, value: body[key] };
  }
  return undefined;
}

/**
 * Resolves one top-level field of a body under the parse mode. Returns:
 * - `{ kind: 'keep' }` when a patch leaves the field out (keep the existing value);
 * - `{ kind: 'missing' }` when a create/update leaves it out (the caller decides: problem or default);
 * - `{ kind: 'given', key, value }` otherwise, `key` being the alias actually used (for problem names).
 */
export function resolveField(
  body: Record<string, unknown>,
  keys: readonly string[],
  mode: ParseMode,
  hasExisting: boolean,
): { kind: 'keep' } | { kind: 'missing' } | { kind: 'given'; key: string; value: unknown } {
  const found = pickField(body, keys);
  if (found) return { kind: 'given', ...found };
  return mode === 'patch' && hasExisting ? { kind: 'keep' } : { kind: 'missing' };
}

/**
 * Validates a list field: `value` must be an array (non-empty when `nonEmpty`), each item checked by `item`,
 * which receives the item's own field name (`macAddresses[2]`). Returns undefined if anything was wrong.
 */
export function parseList<T>(
  value: unknown,
  field: string,
  problems: FieldProblem[],
  nonEmpty: boolean,
  item: (value: unknown, field: string) => T | undefined,
): T[] | undefined {
  if (!Array.isArray(value)) {
    problems.push({ field, reason: `must be an array, got ${kindOf(value)}`, value });
    return undefined;
  }
  if (nonEmpty && value.length === 0) {
    problems.push({ field, reason: 'must list at least one entry', value });
    return undefined;
  }
  const before = problems.length;
  const out: T[] = [];
  // An index loop visits holes in sparse arrays too (as undefined), so they are reported, not skipped.
  for (let i = 0; i < value.length; i++) {
    const parsed = item(value[i] as unknown, `${field}[${i}]`);
    if (parsed !== undefined) out.push(parsed);
  }
  return problems.length === before ? out : undefined;
}

/** A list of hex digests of one length (sha256 hashes, sha1 thumbprints); stored lower-case, de-duplicated. */
export function parseHexList(
  value: unknown,
  field: string,
  problems: FieldProblem[],
  length: number | readonly number[],
  what: string,
): string[] | undefined {
  if (value === undefined || value === null) return [];
  const list = parseList(value, field, problems, false, (v, f) => parseHex(v, f, problems, length, what));
  return list && unique(list);
}

/** One hex digest; separators are refused rather than stripped, so what is stored is exactly what was meant. */
export function parseHex(
  value: unknown,
  field: string,
  problems: FieldProblem[],
  length: number | readonly number[],
  what: string,
): string | undefined {
  const lengths: readonly number[] = typeof length === 'number' ? [length] : length;
  if (typeof value === 'string' && lengths.includes(value.length) && /^[0-9a-fA-F]+$/.test(value)) {
    return value.toLowerCase();
  }
  problems.push({ field, reason: `must be ${what}: ${lengths.join(' or ')} hex characters`, value });
  return undefined;
}

/**
 * A non-empty string of at most `max` characters after trimming; surrounding white space is a copy-paste
 * accident, not meaning.
 */
export function parseName(
  value: unknown,
  field: string,
  problems: FieldProblem[],
  max: number,
): string | undefined {
  if (typeof value === 'string' && value.trim() !== '' && value.trim().length <= max) return value.trim();
  problems.push({
    field,
    reason: `must be a non-empty string of at most ${max} characters, got ${kindOf(value)}`,
    value,
  });
  return undefined;
}
