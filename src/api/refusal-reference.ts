/**
 * The short reference a refusal carries (`7K2Q-PX`): the controller's audit event for it, which the user
 * quotes and an administrator finds in the console (`reference = "7K2Q-PX"`). Shown as `ref 7K2Q-PX` by the
 * CLI, the desktop window, its notifications and a refused connection's page.
 */

/** Four and two characters of Crockford's base32, as the controller makes them (audit/audit-trail.ts). */
const REFERENCE = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{2}$/;

/** `ref 7K2Q-PX`: how every surface shows it. */
export const referenceLabel = (reference: string) => `ref ${reference}`;

/** The reference a value holds, if it is one; anything else (absent, another shape) is not shown. */
export function asReference(value: unknown): string | undefined {
  return typeof value === 'string' && REFERENCE.test(value) ? value : undefined;
}

/** The reference in an error envelope's `cause` (`POST /sessions` refused: `error.cause.reference`). */
export const referenceOfCause = (cause: unknown): string | undefined =>
  typeof cause === 'object' && cause !== null
    ? asReference((cause as { reference?: unknown }).reference)
    : undefined;
