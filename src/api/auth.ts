/** Authentication and the current API session (POST /authenticate, /current-api-session). */
import type { Static } from '@sinclair/typebox';
import type { BaseEntity, EntityRef } from './envelopes.js';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type { AuthenticateBodySchema, EnvInfoSchema, MfaCodeSchema, SdkInfoSchema } from './schemas.js';

/** Facts about the device, sent at login and shown to administrators on the identity. */
export type EnvInfo = Static<typeof EnvInfoSchema>;

/** Who the client is. The controller's MFA-timeout rules depend on `type` (Postern's agent is not "legacy"). */
export type SdkInfo = Static<typeof SdkInfoSchema>;

/** Body of POST /authenticate?method=password: the schema's body with the username and password it needs. */
export type PasswordAuthenticateRequest = Static<typeof AuthenticateBodySchema> & {
  username: string;
  password: string;
};

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
export type MfaCodeBody = Static<typeof MfaCodeSchema>;

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
