/** Errors shown in the desktop app: the controller's "already used" words pass through, the rest read as before. */
import { describe, expect, it } from 'vitest';
import { ControllerError } from '../../../src/controller-client/controller-error.js';
import { toIpcError } from '../../../desktop/ipc/ipc-error.js';

const mfaError = (message: string) =>
  new ControllerError({ status: 400, code: 'MFA_INVALID_TOKEN', message });

describe('toIpcError', () => {
  it('keeps "already used" from the controller, for a TOTP and a recovery code', () => {
    for (const message of [
      'That code was already used; wait for the next one',
      'That recovery code was already used; each works once, use another one',
    ])
      expect(toIpcError(mfaError(message))).toEqual({ code: 'MFA_INVALID_TOKEN', message });
  });

  it('gives a wrong code the friendly words, even though the generic text mentions "already used"', () => {
    expect(toIpcError(mfaError('The MFA code is missing, invalid or already used')).message).toBe(
      'That code was not accepted. Enter the current code from your authenticator app.',
    );
  });
});
