/** Client services with their posture queries, sessions and service updates. */
import type { Static } from '@sinclair/typebox';
import type { SessionEdgeRouter, ServiceConfigMap } from './data-plane.js';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type {
  ClientServiceDetailSchema,
  DialBindSchema,
  PostureQueryProcessSchema,
  PostureQuerySchema,
  PostureQuerySetSchema,
  ServiceUpdatesSchema,
  SessionDetailSchema,
} from './schemas.js';
import type { BaseEntity, EntityRef } from './envelopes.js';
import type { PostureFailureReason } from './posture-reasons.js';
import { POSTURE_TYPE_IDS } from './posture-types/index.js';

/** A posture query's type is its check's type: every type the registry describes (posture-types/). */
export const POSTURE_QUERY_TYPES = POSTURE_TYPE_IDS;

/** `Invalid`: OpenZiti's name for a policy of neither type (Postern's are Dial or Bind). */
export type PolicyType = Static<typeof DialBindSchema> | 'Invalid';

export type PostureQueryProcess = Static<typeof PostureQueryProcessSchema>;

type WirePostureQuery = Static<typeof PostureQuerySchema>;

/**
 * One posture check as a client sees it: `id` is the posture check id a response must carry. `queryType` is
 * one of `POSTURE_QUERY_TYPES` (a string: a newer controller may know more). `timeout`: -1 for none (everything
 * but MFA with a timeout); `timeoutRemaining`: -1 none, 0 MFA not passed on this API session, else seconds left.
 */
export type PostureQuery = Pick<
  WirePostureQuery,
  'id' | 'queryType' | 'isPassing' | 'timeout' | 'timeoutRemaining'
> &
  Partial<
    Pick<
      WirePostureQuery,
      'name' | 'timeoutAt' | 'promptOnWake' | 'promptOnUnlock' | 'process' | 'processes' | 'updatedAt'
    >
  > & {
    // Postern's, beyond the published schema (which lets more fields through):
    promptGracePeriodSeconds?: number;
    /** why the query fails for this device (also on a passing MFA query while a wake or unlock grace period
     *  runs); absent when it passes or from a controller that does not say */
    reason?: PostureFailureReason;
    /** the administrator's own advice for this check, shown to the user as written */
    remediation?: string;
    /** the query passes only because the check warns until this moment (then it refuses); `reason` says why
     *  it fails */
    warning?: { enforceFrom: string };
    /** the query passes only because an administrator's exception covers this device until this moment */
    exception?: { expiresAt: string };
  };

/** The checks of one service policy that grants the service; the policy passes when all of them do. */
export type PolicyPostureQueries = Pick<Static<typeof PostureQuerySetSchema>, 'policyId' | 'isPassing'> & {
  policyType?: PolicyType;
  postureQueries: PostureQuery[];
};

type WireService = Static<typeof ClientServiceDetailSchema>;

/** A service of `GET /services`, as the agent reads it (OpenZiti's controllers may leave fields out). */
export type ServiceDetail = BaseEntity &
  Pick<WireService, 'name'> &
  Partial<Pick<WireService, 'encryptionRequired' | 'configs'>> & {
    permissions?: PolicyType[];
    roleAttributes?: WireService['roleAttributes'] | null;
    /** config type name → data, for the types asked for with `?configTypes=` (`all` for every type) */
    config?: ServiceConfigMap;
    postureQueries: PolicyPostureQueries[];
    /** Postern's: on a service this session may not Dial, the reference of the audit event explaining why */
    refusalReference?: string;
  };

/** `lastChangeAt` moves whenever the access state of one of the identity's services changes. */
export type ServiceUpdates = Static<typeof ServiceUpdatesSchema>;

type WireSession = Static<typeof SessionDetailSchema>;

/** What `POST /sessions` answers, as the agent reads it. */
export type SessionDetail = BaseEntity &
  Pick<WireSession, 'type' | 'serviceId'> &
  Partial<Pick<WireSession, 'apiSessionId' | 'token'>> & {
    service?: EntityRef;
    /** the routers this session may use, each with its URLs and certificate fingerprint */
    edgeRouters?: SessionEdgeRouter[];
  };
