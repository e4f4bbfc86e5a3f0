/**
 * Response schemas of the posture routes, in OpenZiti's field names (client.yml / management.yml). They are
 * what fastify serialises with and what /openapi.json publishes, so the two cannot drift apart.
 */
import { Type } from '@sinclair/typebox';
import { DialBindSchema as DialBind } from '../../../src/api/schemas.js';
import { DateTime, NullableDateTime } from '../../../src/api/resources/fields.js';

// The client API's services, sessions, service updates and posture responses are defined with the wire
// contract (src/api/schemas.ts, src/api/resources/); the routes import them from there.
const open = { additionalProperties: true };

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
