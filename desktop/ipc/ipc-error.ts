/**
 * Errors crossing IPC as data: a code the renderer can branch on and words a user can act on. Shared by the
 * dispatcher (failed requests) and the desktop agent (the status line).
 */
import { ERROR_CODES } from '../../src/api/envelopes.js';
import { isControllerError } from '../../src/controller-client/controller-error.js';
import type { IpcError } from './views.js';

export const IPC_ERRORS = {
  forbidden: 'FORBIDDEN',
  invalidRequest: 'INVALID_REQUEST',
  unknownChannel: 'UNKNOWN_CHANNEL',
  failed: 'FAILED',
} as const;

/** Words for the controller errors a user can act on; the rest keep the controller's own message. */
const FRIENDLY: Record<string, string> = {
  [ERROR_CODES.mfaInvalidToken]:
    'That code was not accepted. Enter the current code from your authenticator app.',
  [ERROR_CODES.invalidAuth]: 'The username or password is not right.',
  [ERROR_CODES.mfaNotEnrolled]: 'Set up an authenticator app (MFA) first.',
};

export function toIpcError(error: unknown): IpcError {
  if (isControllerError(error)) {
    if (error.code === ERROR_CODES.rateLimited) {
      const seconds = error.retryAfterMs === undefined ? undefined : Math.ceil(error.retryAfterMs / 1000);
      return {
        code: error.code,
        message: `Too many attempts; try again${seconds ? ` in ${seconds} s` : ' later'}.`,
      };
    }
    // The controller's "That code was already used…" is more useful than any generic text: the user knows
    // to take the next code. (Its generic "missing, invalid or already used" keeps the friendly words.)
    if (/^That (recovery )?code was already used/.test(error.message))
      return { code: error.code, message: error.message };
    return { code: error.code, message: FRIENDLY[error.code] ?? error.message };
  }
  const named = error as { name?: unknown; code?: unknown };
  const code =
    typeof named.code === 'string'
      ? named.code
      : typeof named.name === 'string' && named.name !== 'Error'
        ? named.name
        : IPC_ERRORS.failed;
  return { code, message: error instanceof Error ? error.message : String(error) };
}
