/** MFA TOTP enrollment of the current identity (seed §2.4, §3.1; api-notes §3). */
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

/** The enrollment states of seed table 3.1, as the agent tells them apart. */
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
