/**
 * The Enforcement section's state and the `enforcement` field it sends. The deadline is edited in the
 * administrator's local time (lib/local-time.ts) and sent as an RFC 3339 instant.
 */
import type { Enforcement, EnforcementMode } from '../../../api/rollout-types.js';
import { instantOf, localInputOf } from '../../../lib/local-time.js';

export interface EnforcementState {
  mode: EnforcementMode;
  /** as the input holds it: `YYYY-MM-DDTHH:mm` in local time, or empty */
  enforceFrom: string;
}

/** The fields the section shows errors for (the form footer lists the others). */
export const ENFORCEMENT_FIELDS = ['enforcement'] as const;

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
