/**
 * One benchmark figure as `bench/results.json` records it. Every figure is a ratio against something
 * measured in the same run on the same machine (these machines are noisy, so absolute numbers from
 * another run or machine compare poorly); a figure with no natural baseline states its ratio to its
 * target instead and says so in `baselineLabel`.
 */

/** How a figure is judged. `ratio` bounds apply to value/baseline; `value` bounds to the value itself. */
export interface Target {
  ratioMin?: number;
  ratioMax?: number;
  valueMax?: number;
}

export interface Figure {
  /** stable key, e.g. `posture-bulk.throughput` */
  name: string;
  label: string;
  value: number;
  unit: string;
  baseline: number | null;
  /** what the baseline is (or "target" when the ratio is to the target) */
  baselineLabel: string;
  ratio: number | null;
  /** human-readable target, e.g. ">= 0.5 x baseline"; null when the figure is informational */
  target: string | null;
  met: boolean | null;
  /** anything a reader needs to interpret the number (how it was driven, samples, caveats) */
  note?: string;
  measuredAt: string;
}

const round = (n: number, digits = 3) => Number(n.toFixed(digits));

function describe(target: Target | null): string | null {
  if (!target) return null;
  const parts: string[] = [];
  if (target.ratioMin !== undefined) parts.push(`>= ${target.ratioMin} x baseline`);
  if (target.ratioMax !== undefined) parts.push(`<= ${target.ratioMax} x baseline`);
  if (target.valueMax !== undefined) parts.push(`< ${target.valueMax}`);
  return parts.join(' and ');
}

/**
 * Builds a figure and decides whether its target is met. With no baseline, a `valueMax` target becomes the
 * reference: ratio = value / valueMax (below 1 is good).
 */
export function figure(input: {
  name: string;
  label: string;
  value: number;
  unit: string;
  baseline?: number | null;
  baselineLabel?: string;
  target?: Target | null;
  note?: string;
}): Figure {
  const target = input.target ?? null;
  const baseline = input.baseline ?? null;
  let ratio: number | null = null;
  let baselineLabel = input.baselineLabel ?? '';
  if (baseline !== null && baseline > 0) ratio = input.value / baseline;
  else if (target?.valueMax !== undefined) {
    ratio = input.value / target.valueMax;
    baselineLabel = baselineLabel || 'ratio is to the target';
  }
  let met: boolean | null = null;
  if (target) {
    met = true;
    if (target.ratioMin !== undefined) met &&= ratio !== null && ratio >= target.ratioMin;
    if (target.ratioMax !== undefined) met &&= ratio !== null && ratio <= target.ratioMax;
    if (target.valueMax !== undefined) met &&= input.value < target.valueMax;
  }
  return {
    name: input.name,
    label: input.label,
    value: round(input.value),
    unit: input.unit,
    baseline: baseline === null ? null : round(baseline),
    baselineLabel,
    ratio: ratio === null ? null : round(ratio),
    target: describe(target),
    met,
    ...(input.note ? { note: input.note } : {}),
    measuredAt: new Date().toISOString(),
  };
}

/** Percentile of a sample (nearest rank); NaN for an empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);
