/**
 * How far V8 lets the old generation grow past what survived its last full collection before it collects
 * again. V8's own factor (up to 4x with a fast collector) suits short-lived programs; a controller keeps its
 * entities, sessions and posture data in memory and serves bursts, and with that factor its resident memory
 * after a burst was 1.4 to 1.8 times the empty controller's at 10k identities, mostly garbage waiting for a
 * collection that came only after some 30 idle seconds. 20 % keeps the heap near what is live, for more
 * frequent full collections (docs/PERFORMANCE.md, "Memory", measures both).
 *
 * POSTERN_HEAP_GROWING_PERCENT sets another (0: V8's own). Set at start, before the caches fill: V8 reads it
 * at every full collection.
 */
import { setFlagsFromString } from 'node:v8';

export const DEFAULT_HEAP_GROWING_PERCENT = 20;
const MAX_PERCENT = 1_000;

/** Applies the growth bound (or the environment's); returns the percent applied, 0 for V8's own. */
export function boundHeapGrowth(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.POSTERN_HEAP_GROWING_PERCENT?.trim();
  const percent = text ? Number(text) : DEFAULT_HEAP_GROWING_PERCENT;
  if (!Number.isInteger(percent) || percent < 0 || percent > MAX_PERCENT)
    throw new Error(
      `POSTERN_HEAP_GROWING_PERCENT must be a whole number from 0 (V8's own) to ${MAX_PERCENT}, not '${text}'`,
    );
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
