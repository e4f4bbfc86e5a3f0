/** Authentication and the current API session (POST /authenticate, /current-api-session). */
import type { Static } from '@sinclair/typebox';
import type { BaseEntity, EntityRef } from './envelopes.js';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type {
  AuthQuerySchema,
  AuthenticateBodySchema,
  CurrentApiSessionSchema,
  EnvInfoSchema,
  SdkInfoSchema,
} from './schemas.js';

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

type WireAuthQuery = Static<typeof AuthQuerySchema>;

/**
 * A factor the session still owes. `typeId` MFA/TOTP with provider `ziti` is answered by POST /authenticate/mfa.
 * Only `typeId` and `provider` are sure: OpenZiti leaves the others out where they do not apply, and
 * `isTotpEnrolled` is Postern's (`false`: the identity must enroll before it can answer). OpenZiti's queries
 * also carry an `id`, which Postern's schema does not publish.
 */
export type AuthQuery = Pick<WireAuthQuery, 'typeId' | 'provider'> &
  Partial<Omit<WireAuthQuery, 'typeId' | 'provider'>> & { id?: string };

type WireCurrentApiSession = Static<typeof CurrentApiSessionSchema>;

/**
 * What POST /authenticate and GET /current-api-session answer, as the agent reads it: the token, who, and
 * which factors are still owed; the rest may be absent (older controllers, test fakes).
 */
export type CurrentApiSession = BaseEntity &
  Pick<WireCurrentApiSession, 'token' | 'identityId' | 'isMfaRequired' | 'isMfaComplete'> &
  Partial<
    Pick<
      WireCurrentApiSession,
      'authenticatorId' | 'configTypes' | 'ipAddress' | 'expiresAt' | 'expirationSeconds' | 'lastActivityAt'
    >
  > & {
    identity: EntityRef;
    authQueries: AuthQuery[];
  };

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
