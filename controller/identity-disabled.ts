/**
 * Whether an identity is disabled now. OpenZiti's `POST /identities/{id}/disable` takes `durationMinutes`: 0
 * disables it until it is enabled again, N > 0 for N minutes (`disabledUntil`). A timed disable ends by itself:
 * past `disabledUntil` the identity signs in and works again, with no write and no timer (so nothing is lost
 * to a restart, and every controller on a shared database agrees).
 */
import type { Identity } from './model.js';

export function isDisabledNow(identity: Pick<Identity, 'disabled' | 'disabledUntil'>, now: Date): boolean {
  if (!identity.disabled) return false;
  return !identity.disabledUntil || Date.parse(identity.disabledUntil) > now.getTime();
}
