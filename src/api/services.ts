/** Client services with their posture queries, sessions and service updates. */
import type { Static } from '@sinclair/typebox';
import type { SessionEdgeRouter, ServiceConfigMap } from './data-plane.js';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type { ServiceUpdatesSchema, SessionCreateSchema } from './schemas.js';
import type { BaseEntity, EntityRef } from './envelopes.js';
import type { PostureFailureReason } from './posture-reasons.js';

export const POSTURE_QUERY_TYPES = ['OS', 'MAC', 'DOMAIN', 'PROCESS', 'PROCESS_MULTI', 'MFA'] as const;
export type PostureQueryType = (typeof POSTURE_QUERY_TYPES)[number];

export type PolicyType = 'Dial' | 'Bind' | 'Invalid';

export interface PostureQueryProcess {
  osType?: string;
  path?: string;
}

/** One posture check as a client sees it: `id` is the posture check id a response must carry. */
export interface PostureQuery {
  id: string;
  queryType: PostureQueryType | string;
  isPassing: boolean;
  /** -1: no timeout (everything but MFA with a timeout) */
  timeout: number;
  /** -1: none; 0: MFA not passed on this API session; else seconds left */
  timeoutRemaining: number;
  timeoutAt?: string | null;
  promptOnWake?: boolean;
  promptOnUnlock?: boolean;
  promptGracePeriodSeconds?: number;
  process?: PostureQueryProcess;
  processes?: PostureQueryProcess[];
  updatedAt?: string;
  /** Postern: why the query fails for this device (also on a passing MFA query while a wake or unlock grace
   *  period runs); absent when it passes or from a controller that does not say */
  reason?: PostureFailureReason;
  /** Postern: the administrator's own advice for this check, shown to the user as written */
  remediation?: string;
}

/** The checks of one service policy that grants the service; the policy passes when all of them do. */
export interface PolicyPostureQueries {
  policyId: string;
  policyType?: PolicyType;
  isPassing: boolean;
  postureQueries: PostureQuery[];
}

export interface ServiceDetail extends BaseEntity {
  name: string;
  permissions?: PolicyType[];
  roleAttributes?: string[] | null;
  encryptionRequired?: boolean;
  /** config ids attached to the service */
  configs?: string[];
  /** config type name → data, for the types asked for with `?configTypes=` (`all` for every type) */
  config?: ServiceConfigMap;
  postureQueries: PolicyPostureQueries[];
}

/** `lastChangeAt` moves whenever the access state of one of the identity's services changes. */
export type ServiceUpdates = Static<typeof ServiceUpdatesSchema>;

export type SessionCreateRequest = Static<typeof SessionCreateSchema>;

export interface SessionDetail extends BaseEntity {
  type: string;
  serviceId: string;
  service?: EntityRef;
  apiSessionId?: string;
  token?: string;
  /** the routers this session may use, each with its URLs and certificate fingerprint */
  edgeRouters?: SessionEdgeRouter[];
}

/** `cause.data` of a 409 INVALID_POSTURE: failing checks per policy id. */
export type InvalidPostureData = Record<string, { id: string; typeId: string; isPassing: boolean }[]>;
