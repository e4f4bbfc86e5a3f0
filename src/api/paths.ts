/**
 * Where things live on the controller. Relative paths (no leading slash) are joined to an API prefix, so
 * the same constants serve the client and the management API, as OpenZiti serves the shared routes on both.
 */

export const CLIENT_API_PREFIX = '/edge/client/v1';
export const MANAGEMENT_API_PREFIX = '/edge/management/v1';

/** The header carrying the API session token on every authenticated request. */
export const SESSION_HEADER = 'zt-session';
/** OpenZiti's header for the TOTP or recovery code on DELETE mfa and GET recovery-codes. */
export const MFA_CODE_HEADER = 'mfa-validation-code';

export const PATHS = {
  version: '/version',
  authenticatePassword: '/authenticate?method=password',
  /** over HTTPS, with the client certificate enrollment issued presented in the TLS handshake */
  authenticateCert: '/authenticate?method=cert',
  authenticateMfa: '/authenticate/mfa',
  /** with the provider's token as `Authorization: Bearer` */
  authenticateExtJwt: '/authenticate?method=ext-jwt',
  /** the client API's list of identity providers a user may sign in with */
  externalJwtSigners: '/external-jwt-signers',
  currentApiSession: '/current-api-session',
  serviceUpdates: '/current-api-session/service-updates',
  currentIdentity: '/current-identity',
  mfa: '/current-identity/mfa',
  mfaVerify: '/current-identity/mfa/verify',
  mfaQrCode: '/current-identity/mfa/qr-code',
  mfaRecoveryCodes: '/current-identity/mfa/recovery-codes',
  services: '/services',
  sessions: '/sessions',
  postureResponse: '/posture-response',
  postureResponseBulk: '/posture-response-bulk',
  currentIdentityEdgeRouters: '/current-identity/edge-routers',
  agentEvents: '/current-api-session/events',
  routerEnroll: '/enroll/erott',
} as const;
