/**
 * Access on the management API (Postern's own routes, beside OpenZiti's): what an identity reported
 * (`posture-data`), the session requests refused for posture (`failed-service-requests`), why an identity can
 * or cannot reach a service (`services/:serviceId/access`, `service-access`) and the overview's summary.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DialBindSchema as DialBindWire } from '../schemas.js';
import { DateTime, EntityRef, NullableDateTime } from './fields.js';
import { POLICY_TYPES } from './vocabulary.js';

const open = { additionalProperties: true };

// ---- posture data, failed service requests ------------------------------------------------------------------

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
  facts: Type.Record(Type.String(), Type.Object(Slot, open), {
    description:
      "Postern: the described types' facts (DISK_ENCRYPTION, FIREWALL, SCREEN_LOCK, ...) by type id, each with its reported fields",
  }),
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
  sessionType: DialBindWire,
  when: DateTime,
  policyFailures: Type.Array(
    Type.Object({ policyId: Type.String(), policyName: Type.String(), checks: Type.Array(CheckFailure) }),
  ),
});
export type PostureDataWire = Static<typeof PostureData>;
export type FailedServiceRequestWire = Static<typeof FailedServiceRequest>;

// ---- service access, the overview ---------------------------------------------------------------------------

const DialBind = Type.Union(POLICY_TYPES.map((t) => Type.Literal(t)));
const Granted = Type.Union([Type.Boolean(), Type.Null()], {
  description: 'null when no policy of this type selects both the identity and the service',
});

export const CheckExplanation = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    typeId: Type.String(),
    isPassing: Type.Boolean(),
    actualValue: Type.Unknown(),
    expectedValue: Type.Unknown(),
    reason: Type.Optional(Type.String({ description: 'why it fails, in a sentence' })),
    failure: Type.Optional(
      Type.Object(
        { code: Type.String() },
        { ...open, description: "the code and facts the device's user is given (see docs/ACCESS.md)" },
      ),
    ),
    remediation: Type.Optional(Type.String()),
    notEnforced: Type.Optional(
      Type.Object(
        {
          because: Type.Union([Type.Literal('exception'), Type.Literal('report-only'), Type.Literal('warn')]),
          until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
        },
        {
          description:
            'Postern: the check fails but lets the device through: why, and until when (null: while report-only)',
        },
      ),
    ),
  },
  open,
);

export const PolicyExplanation = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: DialBind,
  semantic: Type.String(),
  isPassing: Type.Boolean(),
  postureChecks: Type.Array(CheckExplanation),
});

export const ServiceAccess = Type.Object({
  service: EntityRef,
  identity: EntityRef,
  apiSessionId: Type.Union([Type.String(), Type.Null()], {
    description: 'the API session evaluated (MFA checks are per session); null when the identity has none',
  }),
  granted: Type.Object({ Dial: Granted, Bind: Granted }),
  policies: Type.Array(PolicyExplanation),
  otherPolicies: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        type: DialBind,
        semantic: Type.String(),
        identityRoles: Type.Array(Type.String()),
      }),
      { description: 'policies that select the service but not this identity' },
    ),
  ),
});

export const AccessSummary = Type.Object({
  identities: Type.Integer(),
  mfaEnrolled: Type.Integer({ description: 'identities with a verified TOTP enrollment' }),
  devices: Type.Integer({ description: 'identities with a live API session that some Dial policy reaches' }),
  services: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      passing: Type.Integer({ description: 'devices granted Dial now' }),
      failing: Type.Integer({ description: 'devices a Dial policy selects but posture refuses now' }),
    }),
  ),
  evaluatedAt: DateTime,
});

export const RecentFailedServiceRequest = Type.Object(
  { ...FailedServiceRequest.properties, identityId: Type.String(), identity: EntityRef },
  open,
);
export type ServiceAccessWire = Static<typeof ServiceAccess>;
export type AccessSummaryWire = Static<typeof AccessSummary>;
export type RecentFailedServiceRequestWire = Static<typeof RecentFailedServiceRequest>;

// ---- parameters ---------------------------------------------------------------------------------------------

const Id = Type.String({ minLength: 1, maxLength: 255 });
const SessionQuery = {
  apiSessionId: Type.Optional(
    Type.String({ maxLength: 255, description: "default: the identity's most recently active API session" }),
  ),
};
/** `GET /identities/:id/service-access` */
export const ServiceAccessListParams = Type.Object({ id: Id });
export const ServiceAccessListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 0 })), // above 500: a full page (list-query.ts)
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  filter: Type.Optional(Type.String({ maxLength: 1024 })),
  ...SessionQuery,
});
/** `GET /identities/:id/services/:serviceId/access` */
export const ServiceAccessParams = Type.Object({ id: Id, serviceId: Id });
export const ServiceAccessQuery = Type.Object(SessionQuery);

/**
 * `GET /failed-service-requests`: newest first and no filter (one identity's list is
 * /identities/{id}/failed-service-requests); a filter given here is refused by name rather than ignored.
 */
export const FailedServiceRequestsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 0 })), // above 500: a full page (list-query.ts)
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  },
  { additionalProperties: false },
);
