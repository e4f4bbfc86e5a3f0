/**
 * When an enrollment an administrator asks for expires (`expiresAt` of `POST /enrollments`, a refresh, an
 * authenticator's re-enroll): in the future, and at most a year ahead. A 400 naming `expiresAt` otherwise.
 */
import type { ControllerContext } from '../platform/context.js';
import { validationError } from '../api-error.js';

/** Far enough for a token posted to someone on leave; a longer-lived secret is better issued again. */
const MAX_LIFETIME_MS = 365 * 24 * 3600 * 1000;

/** The date asked for, checked; undefined when none was asked (the enrollment lifetime applies). */
export function enrollmentExpiry(ctx: ControllerContext, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  const now = ctx.clock.now().getTime();
  if (at.getTime() <= now)
    throw validationError([{ field: 'expiresAt', reason: 'must be in the future', value }]);
  if (at.getTime() > now + MAX_LIFETIME_MS)
    throw validationError([{ field: 'expiresAt', reason: 'must be at most a year ahead', value }]);
  return at;
}
