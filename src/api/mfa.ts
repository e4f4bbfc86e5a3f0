/** MFA TOTP enrollment of the current identity: /current-identity/mfa and its verify, QR-code and recovery-code routes. */
import type { Static } from '@sinclair/typebox';
import type { BaseEntity } from './envelopes.js';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type { MfaDetailSchema, MfaRecoveryCodesSchema } from './schemas.js';

type WireMfaDetail = Static<typeof MfaDetailSchema>;

/**
 * GET /current-identity/mfa. While unverified it also carries the provisioning URL and recovery codes.
 * `verifiedAt` and `recoveryCodesRemaining` (recovery codes left after verification) are Postern's.
 */
export type MfaDetail = BaseEntity &
  Pick<WireMfaDetail, 'isVerified' | 'provisioningUrl' | 'recoveryCodes'> &
  Partial<Pick<WireMfaDetail, 'verifiedAt' | 'recoveryCodesRemaining'>>;

export type MfaRecoveryCodes = BaseEntity & Pick<Static<typeof MfaRecoveryCodesSchema>, 'recoveryCodes'>;

/** The enrollment states (none, started but unverified, verified), as the agent tells them apart. */
export type MfaState = 'not-enrolled' | 'unverified' | 'enrolled';

/** The base32 secret of an `otpauth://` URL, for manual entry in an authenticator app. */
export function secretOfProvisioningUrl(url: string): string | undefined {
  const query = url.split('?')[1];
  if (!query) return undefined;
  for (const pair of query.split('&')) {
    const [key, value] = pair.split('=');
    if (key === 'secret' && value) return decodeURIComponent(value);
  }
  return undefined;
}
