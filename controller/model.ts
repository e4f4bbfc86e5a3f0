/**
 * The controller's entities as the store keeps them. Field names follow OpenZiti's management API so that
 * routes map them to the wire with little more than date formatting.
 */
// The wire contract's closed sets (src/api/resources/vocabulary.ts), re-exported where the model names them.
import { IDENTITY_TYPES, POLICY_TYPES, SEMANTICS } from '../src/api/resources/vocabulary.js';
import type { PostureCheck } from './posture-model.js';
import type { EnrollmentMethod } from '../src/api/enrollment.js';

export interface Entity {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  tags: Record<string, unknown>;
}

export { IDENTITY_TYPES };
export type IdentityType = (typeof IDENTITY_TYPES)[number];

export interface Identity extends Entity {
  type: IdentityType;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  roleAttributes: string[];
  authPolicyId: string;
  externalId: string | null;
  disabled: boolean;
  /** when it was disabled (ISO-8601); null or absent while enabled */
  disabledAt?: string | null;
  /** a timed disable's end (ISO-8601): past it the identity is enabled again (identity-disabled.ts) */
  disabledUntil?: string | null;
  /**
   * The role attributes the last sign-in through an external JWT signer mapped from its token's claims
   * (auth/ext-jwt/claim-attributes.ts): the next sign-in replaces these and keeps the ones an administrator set.
   * Absent on identities that never signed in so.
   */
  claimAttributes?: string[];
}

export interface Service extends Entity {
  roleAttributes: string[];
  /** config ids, at most one per config type */
  configs: string[];
  encryptionRequired: boolean;
  terminatorStrategy: string;
  maxIdleTimeMillis: number;
}

export interface ConfigType extends Entity {
  /** JSON schema the data of this type's configs must satisfy */
  schema: Record<string, unknown>;
  target: 'service' | 'router' | null;
}

export interface Config extends Entity {
  configTypeId: string;
  data: Record<string, unknown>;
}

export interface EdgeRouter extends Entity {
  roleAttributes: string[];
  disabled: boolean;
  cost: number;
  noTraversal: boolean;
  isTunnelerEnabled: boolean;
  appData: Record<string, unknown>;
  /** where agents reach it, as the router said when it linked */
  hostname: string;
  supportedProtocols: Record<string, string>;
  /** SHA-256 of the router's certificate (lowercase hex), recorded at enrollment: what agents pin */
  fingerprint: string | null;
  certPem: string | null;
  isVerified: boolean;
  /** SHA-256 of the one-time enrollment token; null once redeemed */
  enrollmentTokenHash: string | null;
  /**
   * What the token is derived from (EnrollmentAuthority.routerToken), so the router detail can show the token
   * and its JWT again until it is redeemed; null for a token drawn at random (shown once) and once redeemed.
   */
  enrollmentNonce?: string | null;
  enrollmentCreatedAt: string | null;
  enrollmentExpiresAt: string | null;
  /** SHA-256 of the router's link secret */
  secretHash: string | null;
}

export interface EdgeRouterPolicy extends Entity {
  semantic: Semantic;
  edgeRouterRoles: string[];
  identityRoles: string[];
}

export interface ServiceEdgeRouterPolicy extends Entity {
  semantic: Semantic;
  edgeRouterRoles: string[];
  serviceRoles: string[];
}

export { POLICY_TYPES };
export type PolicyType = (typeof POLICY_TYPES)[number];
export { SEMANTICS };
export type Semantic = (typeof SEMANTICS)[number];

export interface ServicePolicy extends Entity {
  type: PolicyType;
  semantic: Semantic;
  identityRoles: string[];
  serviceRoles: string[];
  postureCheckRoles: string[];
}

export interface AuthPolicy extends Entity {
  primary: {
    updb: {
      allowed: boolean;
      minPasswordLength: number;
      requireSpecialChar: boolean;
      requireNumberChar: boolean;
      requireMixedCase: boolean;
      maxAttempts: number;
      lockoutDurationMinutes: number;
    };
    cert: { allowed: boolean; allowExpiredCerts: boolean };
    extJwt: { allowed: boolean; allowedSigners: string[] };
  };
  secondary: { requireTotp: boolean; requireExtJwtSigner: string | null };
}

/**
 * An OpenID provider (or any JWT issuer) whose tokens sign identities in (`authenticate?method=ext-jwt`), as
 * OpenZiti's `external-jwt-signers`. Its keys come from `jwksEndpoint` or, for a single key, `certPem`.
 */
export interface ExternalJwtSigner extends Entity {
  issuer: string;
  audience: string;
  jwksEndpoint: string | null;
  certPem: string | null;
  /** with `certPem`: the `kid` the issuer's tokens carry (a token naming another key is refused) */
  kid: string | null;
  /** the claim that names the identity: its `externalId` (useExternalId) or its id; `sub` unless set */
  claimsProperty: string;
  useExternalId: boolean;
  enabled: boolean;
  /** what a client needs to run the sign-in at the provider (shown by the client API's list) */
  clientId: string | null;
  scopes: string[];
  externalAuthUrl: string | null;
  targetToken: 'ACCESS' | 'ID' | null;
  /** just-in-time identities: a first sign-in whose claim matches no identity creates one */
  enrollToTokenEnabled: boolean;
  /** the claim the created identity's name comes from (a claim name or a JSON pointer); the matched claim if null */
  enrollNameClaimsSelector: string | null;
  /** the claim mapped to role attributes at every sign-in (a claim name or a JSON pointer), e.g. `groups` */
  enrollAttributeClaimsSelector: string | null;
  /** the auth policy a created identity gets; `default` if null */
  enrollAuthPolicyId: string | null;
}

interface AuthenticatorBase {
  id: string;
  identityId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A username and password (scrypt hash). */
export interface UpdbAuthenticator extends AuthenticatorBase {
  method: 'updb';
  username: string;
  passwordHash: string;
}

/** A client certificate issued by the controller's CA at enrollment; deleting it revokes the certificate. */
export interface CertAuthenticator extends AuthenticatorBase {
  method: 'cert';
  /** SHA-256 of the certificate (lowercase hex), what a sign-in's certificate is looked up by */
  fingerprint: string;
  certPem: string;
}

export type Authenticator = UpdbAuthenticator | CertAuthenticator;

/**
 * A one-time enrollment: `ott` trades its token and a CSR for a client certificate, `updb` its token and a
 * password for the identity's password login. Only the token's hash is kept (see enrollment-tokens.ts).
 */
export interface Enrollment {
  id: string;
  identityId: string;
  method: EnrollmentMethod;
  /** the username a `updb` enrollment creates; null for `ott` */
  username: string | null;
  tokenHash: string;
  /** with the CA's key, gives the token back for an administrator to see (a refresh draws a new one) */
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
  /** set when redeemed; a used enrollment is no longer outstanding */
  usedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ApiSession {
  id: string;
  identityId: string;
  authenticatorId: string;
  ipAddress: string;
  configTypes: string[];
  envInfo: Record<string, string>;
  sdkInfo: Record<string, string>;
  /** TOTP must be passed on this session before it is fully authenticated (verified enrollment at login) */
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastActivityAt: Date;
}

export type { EnrollmentMethod, PostureCheck };
