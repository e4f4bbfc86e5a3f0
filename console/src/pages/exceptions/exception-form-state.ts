/**
 * A new exception from posture checks as the form holds it, and the body the API takes: one identity
 * (`identityId`) or the identities some roles select (`identityRoles`, `#attribute` or `@name`, one per line),
 * one check (`postureCheckId`) or every check (null), an expiry and a reason. The API checks every field and
 * the controller's maximum length of an exception (90 days unless configured otherwise); the one thing checked
 * here is what the API cannot tell from the body: "one check" chosen with no check picked, which would
 * otherwise read as null, every check.
 */
import { linesOf } from '../../components/fields.js';
import { instantOf, localInputIn } from '../../lib/local-time.js';

/** How long a new exception lasts unless the administrator says otherwise: a week to fix the device. */
export const DEFAULT_EXCEPTION_DAYS = 7;
/** The controller's default maximum (`maxPostureExceptionDays`); the API enforces the configured one. */
export const DEFAULT_MAX_EXCEPTION_DAYS = 90;

export interface ExceptionFormState {
  target: 'identity' | 'roles';
  identityId: string | null;
  /** one per line */
  roles: string;
  scope: 'one' | 'all';
  postureCheckId: string | null;
  /** `datetime-local` text */
  expiresAt: string;
  reason: string;
}

export const initialExceptionState = (now: Date = new Date()): ExceptionFormState => ({
  target: 'identity',
  identityId: null,
  roles: '',
  scope: 'one',
  postureCheckId: null,
  expiresAt: localInputIn(DEFAULT_EXCEPTION_DAYS, now),
  reason: '',
});

export function exceptionBody(
  state: ExceptionFormState,
  // A field problem's shape (api-error.ts), written out: unit tests type-check this file without the DOM.
): { body: Record<string, unknown> } | { problems: { field: string; reason: string }[] } {
  if (state.scope === 'one' && !state.postureCheckId)
    return { problems: [{ field: 'postureCheckId', reason: 'choose a check, or "every check"' }] };
  return {
    body: {
      identityId: state.target === 'identity' ? state.identityId : null,
      identityRoles: state.target === 'roles' ? linesOf(state.roles) : null,
      postureCheckId: state.scope === 'one' ? state.postureCheckId : null,
      expiresAt: instantOf(state.expiresAt),
      reason: state.reason.trim(),
    },
  };
}
