/**
 * The Enforcement section's state and the `enforcement` field it sends. The deadline is edited in the
 * administrator's local time (a `datetime-local` input, which has no zone) and sent as an RFC 3339 instant,
 * so "9:00 on 3 March" means 9:00 where the administrator sits, and the API stores one unambiguous moment.
 */
import type { Enforcement, EnforcementMode } from '../../../api/rollout-types.js';

export interface EnforcementState {
  mode: EnforcementMode;
  /** as the input holds it: `YYYY-MM-DDTHH:mm` in local time, or empty */
  enforceFrom: string;
}

/** The fields the section shows errors for (the form footer lists the others). */
export const ENFORCEMENT_FIELDS = ['enforcement'] as const;

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
 * by name (`enforcement.enforceFrom`), and empty is null (the API says a warning needs a deadline).
 */
export function instantOf(local: string): string | null {
  const text = local.trim();
  if (!text) return null;
  // A date-time without an offset is local time (ECMA-262 Date.parse).
  const at = new Date(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text) ? text : Number.NaN);
  return Number.isNaN(at.getTime()) ? text : at.toISOString();
}

export function enforcementStateOf(enforcement: Enforcement | undefined | null): EnforcementState {
  return {
    mode: enforcement?.mode ?? 'enforce',
    enforceFrom: localInputOf(enforcement?.enforceFrom),
  };
}

/** The field as the API takes it: only a warning carries a deadline. */
export function enforcementBody(state: EnforcementState): Enforcement {
  return { mode: state.mode, enforceFrom: state.mode === 'warn' ? instantOf(state.enforceFrom) : null };
}

/** A default deadline for a new warning: two weeks ahead, at 09:00 local time. */
export function suggestedDeadline(now: Date = new Date()): string {
  const at = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 14, 9, 0);
  return localInputOf(at.toISOString());
}

/** The mode in a few words, for lists and the overview. */
export function enforcementText(enforcement: Enforcement | undefined | null): string {
  switch (enforcement?.mode ?? 'enforce') {
    case 'report-only':
      return 'Report only';
    case 'warn':
      return enforcement?.enforceFrom
        ? `Warn until ${new Date(enforcement.enforceFrom).toLocaleString()}`
        : 'Warn';
    default:
      return 'Enforced';
  }
}
