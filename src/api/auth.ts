/** Authentication and the current API session (POST /authenticate, /current-api-session). */
import type { BaseEntity, EntityRef } from './envelopes.js';

/** Facts about the device, sent at login and shown to administrators on the identity. */
export interface EnvInfo {
  os?: string;
  arch?: string;
  osRelease?: string;
  osVersion?: string;
  domain?: string;
  hostname?: string;
}

/** Who the client is. The controller's MFA-timeout rules depend on `type` (Postern's agent is not "legacy"). */
export interface SdkInfo {
  type?: string;
  branch?: string;
  version?: string;
  revision?: string;
  appId?: string;
  appVersion?: string;
}

export interface PasswordAuthenticateRequest {
  username: string;
  password: string;
  envInfo?: EnvInfo;
  sdkInfo?: SdkInfo;
  configTypes?: string[];
}

/** Body of POST /authenticate?method=cert: who the device is comes from its TLS client certificate. */
export type CertAuthenticateRequest = Omit<PasswordAuthenticateRequest, 'username' | 'password'>;

/** A factor the session still owes. `typeId` MFA/TOTP with provider `ziti` is answered by POST /authenticate/mfa. */
export interface AuthQuery {
  typeId: 'MFA' | 'TOTP' | 'EXT-JWT' | string;
  provider: 'ziti' | 'url' | string;
  httpMethod?: string;
  httpUrl?: string;
  minLength?: number;
  maxLength?: number;
  format?: 'numeric' | 'alpha' | 'alphaNumeric' | string;
  id?: string;
  /** Postern sets it; OpenZiti leaves it out. `false` means the identity must enroll before it can answer. */
  isTotpEnrolled?: boolean;
}

export interface CurrentApiSession extends BaseEntity {
  token: string;
  identity: EntityRef;
  identityId: string;
  authenticatorId?: string;
  configTypes?: string[];
  ipAddress?: string;
  authQueries: AuthQuery[];
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  expiresAt?: string;
  expirationSeconds?: number;
  lastActivityAt?: string;
}

/** Body of POST /authenticate/mfa, verify, recovery-codes and friends. */
export interface MfaCodeBody {
  code: string;
}

/** The TOTP auth query this agent can answer itself (OpenZiti's legacy `MFA` or the newer `TOTP`). */
export function isTotpQuery(query: AuthQuery): boolean {
  return (query.typeId === 'MFA' || query.typeId === 'TOTP') && query.provider === 'ziti';
}

export interface CurrentIdentity extends BaseEntity {
  name: string;
  isMfaEnabled?: boolean;
  isAdmin?: boolean;
  roleAttributes?: string[];
}
