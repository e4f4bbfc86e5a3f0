/**
 * The controller's entities as the store keeps them. Field names follow OpenZiti's management API so that
 * routes map them to the wire with little more than date formatting.
 */
import type { PostureCheck } from './posture/types.js';

export interface Entity {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  tags: Record<string, unknown>;
}

export const IDENTITY_TYPES = ['User', 'Device', 'Service', 'Router', 'Default'] as const;
export type IdentityType = (typeof IDENTITY_TYPES)[number];

export interface Identity extends Entity {
  type: IdentityType;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  roleAttributes: string[];
  authPolicyId: string;
  externalId: string | null;
  disabled: boolean;
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

export const POLICY_TYPES = ['Dial', 'Bind'] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];
export const SEMANTICS = ['AllOf', 'AnyOf'] as const;
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

export interface Authenticator {
  id: string;
  identityId: string;
  method: 'updb';
  username: string;
  passwordHash: string;
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

/** The kinds of entity that carry role attributes and are selected by policy roles. */
export type RoleKind = 'identity' | 'service' | 'postureCheck';

export type { PostureCheck };
