/**
 * Response schemas of Postern's own management routes that explain access and summarise it (not in OpenZiti's
 * API): what fastify serialises with and what /openapi.json publishes.
 */
import { Type } from '@sinclair/typebox';
import { POLICY_TYPES } from '../../model.js';
import { DateTime, EntityRef } from '../../../src/api/resources/fields.js';
import { FailedServiceRequest } from './wire-schemas.js';

const DialBind = Type.Union(POLICY_TYPES.map((t) => Type.Literal(t)));
const open = { additionalProperties: true };
const Granted = Type.Union([Type.Boolean(), Type.Null()], {
  description: 'null when no policy of this type selects both the identity and the service',
});

const CheckExplanation = Type.Object(
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
  },
  open,
);

const PolicyExplanation = Type.Object({
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
