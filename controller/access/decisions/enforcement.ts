/**
 * The one place a check's raw result (what its type module answers) becomes the result access is decided on:
 * a failing result still lets the device through while an exception covers it, while the check is
 * report-only, or while a warn check's deadline is ahead. The raw values (actual, expected, reason, failure)
 * are kept, so the user can be told what will be required and the administrator what would have been refused.
 * `notEnforced.until` is the moment this stops by itself: the evaluation's `nextChangeAt` includes it, so the
 * engine's persisted deadlines re-decide exactly then.
 */
import type { CheckResult, PostureCheck } from '../../posture-model.js';
import { enforcementOf } from '../../posture/enforcement-field.js';

/**
 * `exceptionUntil`: the expiry of the latest active exception covering this identity and check, or null.
 * An exception outranks warn and report-only: it is the administrator's word for this device.
 */
export function effectiveResult(
  check: PostureCheck,
  raw: CheckResult,
  exceptionUntil: Date | null,
  now: Date,
): CheckResult {
  if (raw.isPassing) return raw;
  if (exceptionUntil && exceptionUntil.getTime() > now.getTime())
    return { ...raw, isPassing: true, notEnforced: { because: 'exception', until: exceptionUntil } };
  const { mode, enforceFrom } = enforcementOf(check);
  if (mode === 'report-only')
    return { ...raw, isPassing: true, notEnforced: { because: 'report-only', until: null } };
  if (mode === 'warn' && enforceFrom && enforceFrom.getTime() > now.getTime())
    return { ...raw, isPassing: true, notEnforced: { because: 'warn', until: enforceFrom } };
  return raw;
}
