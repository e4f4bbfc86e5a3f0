/**
 * The user's own MFA flows: enroll (start, provisioning URL and recovery codes, verify),
 * status, remove with a code or abandon an unverified enrollment, show and regenerate recovery codes, and
 * answer a TOTP prompt. Calls carrying a code are never retried: a code is good once.
 */
import { ERROR_CODES } from '../../api/envelopes.js';
import {
  secretOfProvisioningUrl,
  type MfaDetail,
  type MfaRecoveryCodes,
  type MfaState,
} from '../../api/mfa.js';
import { MFA_CODE_HEADER, PATHS } from '../../api/paths.js';
import type { ControllerClient } from '../../controller-client/controller-client.js';
import { isControllerError } from '../../controller-client/controller-error.js';

export interface MfaStatus {
  state: MfaState;
  /** While unverified: what the authenticator app needs. */
  provisioningUrl?: string;
  secret?: string;
  recoveryCodes?: string[];
  /** When enrolled, if the controller says. */
  remainingRecoveryCodes?: number;
}

export interface MfaEnrollment {
  provisioningUrl: string;
  /** Base32, for typing into an authenticator app by hand. */
  secret: string;
  recoveryCodes: string[];
}

export class MfaClient {
  constructor(private readonly client: ControllerClient) {}

  async status(): Promise<MfaStatus> {
    let detail: MfaDetail;
    try {
      detail = await this.client.request<MfaDetail>('GET', PATHS.mfa);
    } catch (error) {
      if (isControllerError(error, ERROR_CODES.notFound)) return { state: 'not-enrolled' };
      throw error;
    }
    // An unfinished enrollment may come back marked verified; its provisioning URL gives it away.
    if (!detail.isVerified || detail.provisioningUrl) {
      return {
        state: 'unverified',
        provisioningUrl: detail.provisioningUrl,
        secret: detail.provisioningUrl ? secretOfProvisioningUrl(detail.provisioningUrl) : undefined,
        recoveryCodes: detail.recoveryCodes ?? [],
      };
    }
    return { state: 'enrolled', remainingRecoveryCodes: detail.recoveryCodesRemaining };
  }

  /**
   * Starts an enrollment, or returns the unfinished one so a second attempt shows the same secret (the
   * user may already have scanned it). Rejects when MFA is already verified.
   */
  async enroll(): Promise<MfaEnrollment> {
    try {
      // Postern answers the create with the URL and codes; OpenZiti only with the id, hence the read below.
      const created = await this.client.request<Partial<MfaDetail>>('POST', PATHS.mfa, {
        body: {},
        retry: false,
      });
      if (created?.provisioningUrl && created.recoveryCodes) {
        const { provisioningUrl, recoveryCodes } = created;
        return { provisioningUrl, secret: secretOfProvisioningUrl(provisioningUrl) ?? '', recoveryCodes };
      }
    } catch (error) {
      const exists =
        isControllerError(error, ERROR_CODES.mfaExists) ||
        isControllerError(error, ERROR_CODES.alreadyMfaEnrolled);
      if (!exists) throw error;
    }
    const status = await this.status();
    if (status.state !== 'unverified' || !status.provisioningUrl) {
      throw new Error('MFA is already set up for this account; remove it first to enroll again');
    }
    return {
      provisioningUrl: status.provisioningUrl,
      secret: status.secret ?? '',
      recoveryCodes: status.recoveryCodes ?? [],
    };
  }

  /** Completes enrollment with a current TOTP code (recovery codes are refused here). */
  async verify(code: string): Promise<void> {
    await this.client.request('POST', PATHS.mfaVerify, { body: { code }, retry: false });
  }

  /** Removes MFA; an unverified enrollment needs no code. */
  async remove(code?: string): Promise<void> {
    await this.client.request('DELETE', PATHS.mfa, {
      headers: code ? { [MFA_CODE_HEADER]: code } : {},
      retry: false,
    });
  }

  /** The current recovery codes; needs a TOTP code. */
  async recoveryCodes(code: string): Promise<string[]> {
    const detail = await this.client.request<MfaRecoveryCodes>('GET', PATHS.mfaRecoveryCodes, {
      headers: { [MFA_CODE_HEADER]: code },
      retry: false,
    });
    return detail.recoveryCodes ?? [];
  }

  /**
   * Replaces the recovery codes. Resolves with the new codes when the controller returns them; OpenZiti
   * returns an empty body, and the new list must then be read with the next code.
   */
  async regenerateRecoveryCodes(code: string): Promise<string[] | undefined> {
    const reply = await this.client.request<Partial<MfaRecoveryCodes> | undefined>(
      'POST',
      PATHS.mfaRecoveryCodes,
      {
        body: { code },
        retry: false,
      },
    );
    return Array.isArray(reply?.recoveryCodes) ? reply.recoveryCodes : undefined;
  }

  /** Answers the session's TOTP query or an MFA posture prompt (TOTP or recovery code). */
  async submit(code: string): Promise<void> {
    await this.client.request('POST', PATHS.authenticateMfa, { body: { code }, reauth: false, retry: false });
  }
}
