/**
 * Deadlines in words, for the user: when a check in warn mode starts to enforce, when an exception ends.
 * Pure (no Node imports) like the other explanations: the CLI, the tray and the renderer say them alike.
 */
import type { ExceptedCheck, WarnedCheck } from './service-access.js';

/**
 * `3 March 2027, 09:00` in the user's time zone (a test passes one). Assembled from parts so every
 * runtime's ICU says it the same way; an unreadable date is shown as sent.
 */
export function dateInWords(iso: string, timeZone?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const parts = new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    ...(timeZone ? { timeZone } : {}),
  }).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')} ${part('month')} ${part('year')}, ${part('hour')}:${part('minute')}`;
}

/** One warned check as a sentence: the deadline, then what to do (the same words as a failing check). */
export const warningInWords = (check: WarnedCheck, timeZone?: string) =>
  `From ${dateInWords(check.enforceFrom, timeZone)}: ${check.explanation}`;

/** One excepted check as a sentence: the exception's end, then what would fix it for good. */
export const exceptionInWords = (check: ExceptedCheck, timeZone?: string) =>
  `Exception until ${dateInWords(check.expiresAt, timeZone)}: ${check.explanation}`;
