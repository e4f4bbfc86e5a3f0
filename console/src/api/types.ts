/** The management API's entities as the console reads them (OpenZiti's field names; only what it shows). */
import type { BaseEntity, EntityRef } from '../../../src/api/envelopes.js';
import type { CheckExplanation, PolicyExplanation } from '../../../src/api/access-explanation.js';

export type { CheckExplanation, EntityRef, PolicyExplanation };

export interface Named extends BaseEntity {
  name: string;
}

/**
 * An outstanding enrollment on an identity (OpenZiti's `enrollment.ott`, `enrollment.updb`): the one-time token
 * and the JWT that carries it, until used.
 */
export interface PendingEnrollment {
  id?: string;
  token?: string;
  jwt?: string;
  expiresAt?: string;
  issuedAt?: string;
  /** updb: the login the user sets a password for */
  username?: string;
}

export interface Identity extends Named {
  typeId: string;
  isAdmin: boolean;
  isDefaultAdmin: boolean;
  isMfaEnabled: boolean;
  disabled: boolean;
  roleAttributes: string[];
  authPolicyId: string;
  authPolicy?: EntityRef;
  authenticators: { updb?: { id: string; username: string } };
  enrollment?: { ott?: PendingEnrollment | null; updb?: PendingEnrollment | null } | null;
  hasApiSession: boolean;
  envInfo: Record<string, string>;
  sdkInfo: Record<string, string>;
  lastActivityAt?: string | null;
}

export interface Service extends Named {
  roleAttributes: string[];
  configs: string[];
  encryptionRequired: boolean;
}

export interface Config extends Named {
  configTypeId: string;
  configType: EntityRef;
  data: Record<string, unknown>;
}

export interface NamedRole {
  role: string;
  name: string;
}

export interface ServicePolicy extends Named {
  type: 'Dial' | 'Bind';
  semantic: 'AllOf' | 'AnyOf';
  identityRoles: string[];
  serviceRoles: string[];
  postureCheckRoles: string[];
  identityRolesDisplay?: NamedRole[];
  serviceRolesDisplay?: NamedRole[];
  postureCheckRolesDisplay?: NamedRole[];
}

export interface ProcessRuleWire {
  osType: string;
  path: string;
  hashes?: string[];
  signerFingerprints?: string[];
}

export interface PostureCheck extends Named {
  typeId: string;
  roleAttributes: string[];
  remediation?: string | null;
  operatingSystems?: { type: string; versions: string[] }[];
  macAddresses?: string[];
  domains?: string[];
  process?: ProcessRuleWire;
  processes?: ProcessRuleWire[];
  semantic?: string;
  timeoutSeconds?: number;
  promptOnWake?: boolean;
  promptOnUnlock?: boolean;
  ignoreLegacyEndpoints?: boolean;
}

export interface EdgeRouter extends Named {
  roleAttributes: string[];
  disabled: boolean;
  isOnline: boolean;
  isVerified: boolean;
  hostname: string;
  fingerprint: string | null;
  enrollmentCreatedAt: string | null;
  enrollmentExpiresAt: string | null;
}

export interface RouterEnrollment {
  id: string;
  enrollmentToken: string;
  enrollmentExpiresAt: string;
}

export interface ApiSession extends BaseEntity {
  identityId: string;
  ipAddress: string;
  isMfaRequired: boolean;
  isMfaComplete: boolean;
  lastActivityAt: string;
}

interface Slot {
  postureCheckId: string;
  lastUpdatedAt: string | null;
}

export interface PostureData {
  os: Slot & { type?: string; version?: string; build: string | null };
  mac: Slot & { addresses: string[] | null };
  domain: Slot & { domain?: string };
  processes: (Slot & { path: string; isRunning: boolean; binaryHash: string })[];
  apiSessionPostureData: Record<
    string,
    {
      mfa: { passedAt: string | null; passedMfa: boolean };
      endpointState?: { wokenAt: string | null; unlockedAt: string | null };
      sdkInfo: Record<string, string> | null;
    }
  >;
}

export interface CheckFailure {
  postureCheckId: string;
  postureCheckName: string;
  postureCheckType: string;
  actualValue: unknown;
  expectedValue: unknown;
  reason?: string;
  code?: string;
}

export interface FailedServiceRequest {
  apiSessionId: string;
  serviceId: string;
  serviceName: string;
  sessionType: string;
  when: string;
  policyFailures: { policyId: string; policyName: string; checks: CheckFailure[] }[];
  identity?: EntityRef;
  identityId?: string;
}

export interface ServiceAccess {
  service: EntityRef;
  identity: EntityRef;
  apiSessionId: string | null;
  granted: { Dial: boolean | null; Bind: boolean | null };
  policies: PolicyExplanation[];
  otherPolicies?: { id: string; name: string; type: string; semantic: string; identityRoles: string[] }[];
}

export interface AccessSummary {
  identities: number;
  mfaEnrolled: number;
  devices: number;
  services: { id: string; name: string; passing: number; failing: number }[];
  evaluatedAt: string;
}

export interface ConfigType extends Named {
  target: string | null;
}

export interface AuthPolicy extends Named {
  secondary: { requireTotp: boolean };
}
