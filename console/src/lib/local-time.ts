/**
 * Moments edited in the administrator's local time: a `datetime-local` input has no zone, and the API takes
 * RFC 3339 instants, so "9:00 on 3 March" means 9:00 where the administrator sits and the API stores one
 * unambiguous moment.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a `datetime-local` value in this browser's zone (minutes: the input's own precision). */
export function localInputOf(iso: string | null | undefined): string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return (
    `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}` +
    `T${pad(at.getHours())}:${pad(at.getMinutes())}`
  );
}

/**
 * A `datetime-local` value as an RFC 3339 instant; text that is no date goes as typed, for the API to refuse
 * by the field it names, and empty is null (the API says which field needs a moment).
 */
export function instantOf(local: string): string | null {
  const text = local.trim();
  if (!text) return null;
  // A date-time without an offset is local time (ECMA-262 Date.parse).
  const at = new Date(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text) ? text : Number.NaN);
  return Number.isNaN(at.getTime()) ? text : at.toISOString();
}

/** `days` from `now`, as a `datetime-local` value (to the minute). */
export function localInputIn(days: number, now: Date = new Date()): string {
  return localInputOf(new Date(now.getTime() + days * 86_400_000).toISOString());
}
