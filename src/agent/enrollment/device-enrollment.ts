/**
 * Enrolling this device with a token, shared by the CLI's `enroll` and the desktop's "Enroll with a token".
 * `DeviceEnrollment.check` does everything that must happen before the token is sent: read it, refuse an
 * expired one or one for another controller than the user named, decide how to trust the controller (the
 * user's CA or pin, else the TLS fingerprint the token carries), and verify the token's signature with the
 * key that controller publishes. Only then do `withCertificate` (a key made here, a CSR out, the certificate
 * back) or `withPassword` spend it.
 */
import type { EnrollmentMethod } from '../../api/enrollment.js';
import { normaliseFingerprint } from '../../api/data-plane.js';
import { ControllerClient } from '../../controller-client/controller-client.js';
import { isControllerError } from '../../controller-client/controller-error.js';
import type { ControllerTrust } from '../../controller-client/controller-trust.js';
import type { RetryOptions } from '../../controller-client/retry-policy.js';
import { sameController } from '../session/credential-vault.js';
import type { AgentLogger } from '../../common/logger.js';
import {
  checkEnrollmentSignature,
  readEnrollmentJwt,
  type DecodedEnrollmentJwt,
} from './enrollment-jwt-check.js';
import { EnrollmentClient } from './enrollment-client.js';
import { EnrollmentRefused } from './enrollment-refused.js';
import { certificateMatchesKey, createDeviceKeyRequest, issuedBy } from './device-key.js';
import type { DeviceIdentity, DeviceIdentityStore } from './device-identity.js';
import { agentCommand } from '../cli/command-name.js';

export interface EnrollmentOptions {
  /** the controller the user named; the token's issuer must be the same one */
  controllerUrl?: string;
  /** PEM CA bundle to trust for the controller's TLS certificate */
  ca?: string | Buffer;
  /** the controller's TLS certificate fingerprint, pinned; the token's own is used when neither is given */
  fingerprint?: string;
  allowPlainHttp?: boolean;
  retry?: Partial<RetryOptions>;
  logger?: AgentLogger;
  now?: () => Date;
}

/** What the checked token says, for the user to see before it is spent. */
export interface EnrollmentSummary {
  method: EnrollmentMethod;
  controllerUrl: string;
  identityId: string;
  expiresAt: Date;
  /** the fingerprint taken from the token and pinned, to remember with the controller URL */
  pinnedFingerprint: string | undefined;
  /** the username of a `updb` enrollment, when the token carries one */
  username: string | undefined;
}

/** `http(s)://host:port` as the agent keeps controller URLs; anything else is not a controller. */
function controllerUrlOf(issuer: string): string {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new EnrollmentRefused(`this enrollment token names no controller URL (iss '${issuer}')`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new EnrollmentRefused(`this enrollment token names a controller that is not http(s): ${issuer}`);
  return url.toString().replace(/\/+$/, '');
}

/** Controller errors about the token itself become one sentence; transport errors and limits stay as they are. */
function refusal(error: unknown): unknown {
  if (!isControllerError(error) || error.isUnreachable || error.status === 429 || error.status >= 500)
    return error;
  const reason = error.apiCause?.reason;
  // A field other than the token (the password's rules, the username) is the user's to fix, as worded.
  if (error.field && error.field !== 'token' && reason) return error;
  return new EnrollmentRefused(`the controller refused this enrollment token: ${reason ?? error.message}`);
}

export class DeviceEnrollment {
  private constructor(
    private readonly token: DecodedEnrollmentJwt,
    readonly summary: EnrollmentSummary,
    /** the trust the controller was reached with, for the agent that signs in afterwards */
    readonly trust: ControllerTrust,
    private readonly api: EnrollmentClient,
  ) {}

  /** Reads and verifies the token; nothing secret has been sent when this resolves or throws. */
  static async check(text: string, options: EnrollmentOptions = {}): Promise<DeviceEnrollment> {
    const token = readEnrollmentJwt(text, options.now?.() ?? new Date());
    const { claims } = token;
    const controllerUrl = controllerUrlOf(claims.iss);
    if (options.controllerUrl && !sameController(controllerUrlOf(options.controllerUrl), controllerUrl))
      throw new EnrollmentRefused(
        `this enrollment token is for the controller at ${controllerUrl}, not ${options.controllerUrl}; refusing to use it`,
      );
    const pinnedFingerprint = pinFromToken(token, controllerUrl, options);
    const trust: ControllerTrust = { ca: options.ca, fingerprint: options.fingerprint ?? pinnedFingerprint };
    const client = new ControllerClient({
      baseUrl: controllerUrl,
      trust,
      allowPlainHttp: options.allowPlainHttp,
      retry: options.retry,
      logger: options.logger,
    });
    const api = new EnrollmentClient(client);
    try {
      let keys: unknown;
      try {
        keys = await api.signingKeys();
      } catch (error) {
        if (!isControllerError(error) || error.isUnreachable || error.status === 429) throw error;
        throw new EnrollmentRefused(
          `the controller at ${controllerUrl} does not publish its enrollment key, so this token cannot be checked (${error.message})`,
        );
      }
      checkEnrollmentSignature(token, keys);
      // A certificate signs in only over TLS: enrolling one with a plain-HTTP controller would spend the token
      // and leave a device that cannot sign in. Refused once the token is known genuine, before it is redeemed.
      if (claims.em === 'ott' && controllerUrl.startsWith('http://'))
        throw new EnrollmentRefused(
          `this token enrolls a certificate with ${controllerUrl}, which serves plain HTTP, where a certificate ` +
            'cannot sign in; the token was not used: ask your administrator to start the controller with ' +
            '--https and to send the token again',
        );
    } catch (error) {
      client.close();
      throw error;
    }
    const username = (claims as { username?: unknown }).username;
    return new DeviceEnrollment(
      token,
      {
        method: claims.em,
        controllerUrl,
        identityId: claims.sub,
        expiresAt: new Date(claims.exp * 1000),
        pinnedFingerprint,
        username: typeof username === 'string' ? username : undefined,
      },
      trust,
      api,
    );
  }

  /**
   * `ott`: a key made on this device, stored before the token is spent (a store that cannot keep it fails
   * first, with the token still good), its CSR exchanged for a certificate, the certificate checked to
   * certify that key and to come from the CA sent with it, then stored beside the key.
   */
  async withCertificate(devices: DeviceIdentityStore): Promise<DeviceIdentity> {
    this.expect('ott');
    const { controllerUrl, identityId } = this.summary;
    const existing = await devices.load();
    if (existing)
      throw new EnrollmentRefused(
        `this device is already enrolled with ${existing.controllerUrl}; run ${agentCommand('unenroll')} first to enroll it again`,
      );
    const request = await createDeviceKeyRequest(identityId);
    await devices.saveKey({ controllerUrl, identityId, privateKeyPem: request.privateKeyPem });
    try {
      const issued = await this.api
        .redeemForCertificate(this.token.claims.jti, request.csrPem)
        .catch((error: unknown) => Promise.reject(refusal(error)));
      if (typeof issued?.cert !== 'string' || typeof issued.ca !== 'string')
        throw new EnrollmentRefused(
          'the controller answered the enrollment without a certificate and its CA',
        );
      if (!certificateMatchesKey(issued.cert, request.privateKeyPem))
        throw new EnrollmentRefused(
          "the controller's certificate does not certify this device's key; not using it",
        );
      if (!issuedBy(issued.cert, issued.ca))
        throw new EnrollmentRefused(
          "the controller's certificate was not issued by the CA it sent; not using it",
        );
      const identity: DeviceIdentity = {
        controllerUrl,
        identityId,
        certificatePem: issued.cert,
        caPem: issued.ca,
        privateKeyPem: request.privateKeyPem,
      };
      devices.saveCertificates(identity);
      return identity;
    } catch (error) {
      await devices.delete().catch(() => undefined);
      throw error;
    }
  }

  /** `updb`: sets the identity's password (the controller checks it against its rules). */
  async withPassword(password: string, username?: string): Promise<void> {
    this.expect('updb');
    await this.api
      .redeemForPassword(this.token.claims.jti, password, username ?? this.summary.username)
      .catch((error: unknown) => Promise.reject(refusal(error)));
  }

  close(): void {
    this.api.client.close();
  }

  private expect(method: EnrollmentMethod): void {
    if (this.summary.method !== method)
      throw new Error(`this is a ${this.summary.method} enrollment token, not ${method}`);
  }
}

/** The token's TLS fingerprint, pinned for an https controller the user gave no CA or pin for. */
function pinFromToken(
  token: DecodedEnrollmentJwt,
  controllerUrl: string,
  options: EnrollmentOptions,
): string | undefined {
  const carried = token.claims.tlsCertSha256;
  if (options.ca || options.fingerprint || !controllerUrl.startsWith('https:') || carried === undefined)
    return undefined;
  const hex = typeof carried === 'string' ? normaliseFingerprint(carried) : '';
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw new EnrollmentRefused('this enrollment token carries a TLS fingerprint that is not a SHA-256 one');
  return hex;
}
