/**
 * The management API's entities as the console reads them, derived from the wire contract's schemas
 * (src/api/resources/): a field renamed or retyped there fails the console's build instead of reading
 * `undefined`. Each type picks the fields the console shows. Where a schema is looser than what the controller
 * sends (free-form objects such as an identity's `authenticators` or `envInfo`, a policy's `type` published as
 * a plain string, the fields of each posture check type), the console's reading is written beside the pick.
 *
 * Imported as types only: the console's bundle carries no schema code.
 */
import type { BaseEntity, EntityRef } from '../../../src/api/envelopes.js';
import type { IdentityEnrollment } from '../../../src/api/enrollment.js';
import type { CheckExplanation, PolicyExplanation } from '../../../src/api/access-explanation.js';
import type { AuthenticatorWire, IdentityWire } from '../../../src/api/resources/identities.js';
import type { ServiceWire } from '../../../src/api/resources/services.js';
import type { ConfigTypeWire, ConfigWire } from '../../../src/api/resources/configs.js';
import type { AuthPolicyWire, ServicePolicyWire } from '../../../src/api/resources/policies.js';
import type { PostureCheckWire } from '../../../src/api/resources/posture-checks.js';
import type { EdgeRouterWire, RouterEnrollmentWire } from '../../../src/api/resources/edge-routers.js';
import type { ApiSessionWire } from '../../../src/api/resources/sessions.js';
import type {
  AccessSummaryWire,
  FailedServiceRequestWire,
  PostureDataWire,
  RecentFailedServiceRequestWire,
  ServiceAccessWire,
} from '../../../src/api/resources/access.js';
import type { POLICY_TYPES, SEMANTICS } from '../../../src/api/resources/vocabulary.js';
import type { Enforcement } from './rollout-types.js';

export type { CheckExplanation, EntityRef, PolicyExplanation };

export interface Named extends BaseEntity {
  name: string;
}

/**
 * An outstanding enrollment on an identity (OpenZiti's `enrollment.ott`, `enrollment.updb`): the one-time token
 * and the JWT that carries it, until used.
 */
export type PendingEnrollment = Partial<IdentityEnrollment>;

export type Identity = Named &
  Pick<
    IdentityWire,
    | 'typeId'
    | 'isAdmin'
    | 'isDefaultAdmin'
    | 'isMfaEnabled'
    | 'disabled'
    | 'roleAttributes'
    | 'authPolicyId'
    | 'hasApiSession'
    | 'lastActivityAt'
  > & {
    authPolicy?: EntityRef;
    // Free-form objects in the schema; what the controller puts in them.
    authenticators: { updb?: { id: string; username: string }; cert?: { id: string; fingerprint: string } };
    enrollment?: { [M in keyof IdentityWire['enrollment']]?: PendingEnrollment | null } | null;
    envInfo: Record<string, string>;
    sdkInfo: Record<string, string>;
  };

export type Service = Named & Pick<ServiceWire, 'roleAttributes' | 'configs' | 'encryptionRequired'>;

export type Config = Named &
  Pick<ConfigWire, 'configTypeId'> & {
    configType: EntityRef;
    /** a free-form object in the schema, checked against the config type's JSON schema */
    data: Record<string, unknown>;
  };

export type NamedRole = ServicePolicyWire['identityRolesDisplay'][number];

export type ServicePolicy = Named &
  Pick<ServicePolicyWire, 'identityRoles' | 'serviceRoles' | 'postureCheckRoles'> &
  Partial<
    Pick<ServicePolicyWire, 'identityRolesDisplay' | 'serviceRolesDisplay' | 'postureCheckRolesDisplay'>
  > & {
    // Published as plain strings; the controller stores only these.
    type: (typeof POLICY_TYPES)[number];
    semantic: (typeof SEMANTICS)[number];
  };

/** A PROCESS check's `process` or one of a PROCESS_MULTI check's `processes`, as the console edits them. */
export interface ProcessRuleWire {
  osType: string;
  path: string;
  hashes?: string[];
  /** PROCESS_MULTI's rules */
  signerFingerprints?: string[];
  /** a PROCESS check's one signer (OpenZiti's field) */
  signerFingerprint?: string;
}

/**
 * The entity schema names the fields every check has; each type's own fields (in the create bodies' documents,
 * POSTURE_CHECK_DOCS) are read as the controller shows them back.
 */
export type PostureCheck = Named &
  Pick<PostureCheckWire, 'typeId' | 'roleAttributes'> & {
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
    /** Postern's staged enforcement (rollout-types.ts); absent on a controller that predates it */
    enforcement?: Enforcement;
  };

export type EdgeRouter = Named &
  Pick<
    EdgeRouterWire,
    | 'roleAttributes'
    | 'disabled'
    | 'isOnline'
    | 'isVerified'
    | 'hostname'
    | 'fingerprint'
    | 'enrollmentCreatedAt'
    | 'enrollmentExpiresAt'
  >;

export type RouterEnrollment = Pick<RouterEnrollmentWire, 'id' | 'enrollmentToken' | 'enrollmentExpiresAt'>;

export type ApiSession = BaseEntity &
  Pick<ApiSessionWire, 'identityId' | 'ipAddress' | 'isMfaRequired' | 'isMfaComplete' | 'lastActivityAt'>;

export type Authenticator = BaseEntity &
  Pick<AuthenticatorWire, 'method' | 'identityId' | 'username' | 'fingerprint' | 'expiresAt'>;

export type PostureData = PostureDataWire;

/** One check a refused request failed; the schema's open object also carries a reason and a failure code. */
export type CheckFailure = FailedServiceRequestWire['policyFailures'][number]['checks'][number] & {
  reason?: string;
  code?: string;
};

/** A refused request: one identity's (`/identities/{id}/failed-service-requests`) or anyone's, with whose. */
export type FailedServiceRequest = Omit<FailedServiceRequestWire, 'policyFailures'> & {
  policyFailures: { policyId: string; policyName: string; checks: CheckFailure[] }[];
} & Partial<Pick<RecentFailedServiceRequestWire, 'identity' | 'identityId'>>;

/** Each posture check's `failure` is read with its codes' facts (src/api/access-explanation.ts). */
export type ServiceAccess = Omit<ServiceAccessWire, 'policies'> & { policies: PolicyExplanation[] };

export type AccessSummary = AccessSummaryWire;

export type ConfigType = Named & Pick<ConfigTypeWire, 'target'>;

export type AuthPolicy = Named & { secondary: Pick<AuthPolicyWire['secondary'], 'requireTotp'> };
