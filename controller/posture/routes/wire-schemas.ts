/**
 * Response schemas of the posture routes, in OpenZiti's field names (client.yml / management.yml). They are
 * what fastify serialises with and what /openapi.json publishes, so the two cannot drift apart.
 */
import { Type } from '@sinclair/typebox';
import {
  PostureResponseReplySchema,
  ServiceUpdatesSchema,
  SessionCreateSchema,
} from '../../../src/api/schemas.js';
import { POLICY_TYPES } from '../../model.js';
import { BaseEntity, DateTime, EntityRef, NullableDateTime } from '../../http/schemas.js';
import { ServiceDetail } from '../../routes/management/services.js';

const DialBind = Type.Union(POLICY_TYPES.map((t) => Type.Literal(t)));
const open = { additionalProperties: true };

const PostureQueryProcess = Type.Object({
  osType: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
});

export const PostureQuery = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    queryType: Type.String(),
    isPassing: Type.Boolean(),
    timeout: Type.Integer(),
    timeoutRemaining: Type.Integer(),
    timeoutAt: Type.Optional(NullableDateTime),
    promptOnWake: Type.Optional(Type.Boolean()),
    promptOnUnlock: Type.Optional(Type.Boolean()),
    process: Type.Optional(PostureQueryProcess),
    processes: Type.Optional(Type.Array(PostureQueryProcess)),
  },
  open,
);

export const PostureQuerySet = Type.Object({
  policyId: Type.String(),
  policyType: DialBind,
  isPassing: Type.Boolean(),
  postureQueries: Type.Array(PostureQuery),
});

export const ClientServiceDetail = Type.Object(
  {
    ...ServiceDetail.properties,
    permissions: Type.Array(DialBind),
    postureQueries: Type.Array(PostureQuerySet),
  },
  open,
);

export const SessionDetail = Type.Object(
  {
    ...BaseEntity,
    type: DialBind,
    token: Type.String(),
    apiSessionId: Type.String(),
    apiSession: EntityRef,
    serviceId: Type.String(),
    service: EntityRef,
    identityId: Type.String(),
    edgeRouters: Type.Array(Type.Object({}, open)),
  },
  open,
);

/** Shared with the agent (src/api/schemas.ts). */
export const SessionCreate = SessionCreateSchema;

/** Loose on purpose: each item is validated in code so a problem names `[index].field` precisely. */
export const PostureResponseCreate = Type.Object(
  {
    id: Type.String({ description: 'the posture check (query) answered' }),
    typeId: Type.String({ description: 'OS, MAC, DOMAIN, PROCESS or ENDPOINT_STATE' }),
  },
  {
    ...open,
    description:
      'plus the fields of the typeId: OS {type, version, build}, MAC {macAddresses}, DOMAIN {domain}, PROCESS {path, isRunning, hash, signerFingerprints}, ENDPOINT_STATE {woken, unlocked}',
  },
);

export const PostureResponseReply = Type.Object({
  data: PostureResponseReplySchema,
  meta: Type.Object({}, open),
});

export const ServiceUpdates = ServiceUpdatesSchema;

const Slot = { postureCheckId: Type.String(), lastUpdatedAt: NullableDateTime, timedOut: Type.Boolean() };

export const PostureData = Type.Object({
  os: Type.Object({
    ...Slot,
    type: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    build: Type.Union([Type.String(), Type.Null()]),
  }),
  mac: Type.Object({ ...Slot, addresses: Type.Union([Type.Array(Type.String()), Type.Null()]) }),
  domain: Type.Object({ ...Slot, domain: Type.Optional(Type.String()) }),
  processes: Type.Array(
    Type.Object({
      ...Slot,
      path: Type.String(),
      isRunning: Type.Boolean(),
      binaryHash: Type.String(),
      signerFingerprints: Type.Array(Type.String()),
    }),
  ),
  apiSessionPostureData: Type.Record(
    Type.String(),
    Type.Object({
      mfa: Type.Object({
        apiSessionId: Type.String(),
        passedAt: NullableDateTime,
        passedMfa: Type.Boolean(),
        passedOnWake: Type.Boolean(),
        passedOnUnlock: Type.Boolean(),
      }),
      endpointState: Type.Optional(Type.Object({ wokenAt: NullableDateTime, unlockedAt: NullableDateTime })),
      sdkInfo: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
    }),
  ),
});

const CheckFailure = Type.Object(
  {
    postureCheckId: Type.String(),
    postureCheckName: Type.String(),
    postureCheckType: Type.String(),
    actualValue: Type.Unknown(),
    expectedValue: Type.Unknown(),
  },
  { ...open, description: 'plus type-specific fields: MFA criteria, PROCESS_MULTI semantic, and a reason' },
);

export const FailedServiceRequest = Type.Object({
  apiSessionId: Type.String(),
  serviceId: Type.String(),
  serviceName: Type.String(),
  sessionType: DialBind,
  when: DateTime,
  policyFailures: Type.Array(
    Type.Object({ policyId: Type.String(), policyName: Type.String(), checks: Type.Array(CheckFailure) }),
  ),
});
