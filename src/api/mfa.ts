/** MFA TOTP enrollment of the current identity: /current-identity/mfa and its verify, QR-code and recovery-code routes. */
import type { BaseEntity } from './envelopes.js';

/** GET /current-identity/mfa. While unverified it also carries the provisioning URL and recovery codes. */
export interface MfaDetail extends BaseEntity {
  isVerified: boolean;
  provisioningUrl?: string;
  recoveryCodes?: string[];
  /** Postern: recovery codes left after verification */
  recoveryCodesRemaining?: number;
}

export interface MfaRecoveryCodes extends BaseEntity {
  recoveryCodes: string[];
}

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
