/**
 * Edge routers on the wire: the management API's `edge-routers` (bodies, entity, the one-time enrollment token a
 * create or re-enroll answers) and the client API's router side: `POST /enroll/erott`, where a router redeems
 * its token, and `GET /current-identity/edge-routers`. Router policies are in policies.ts.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Attributes, BaseEntity, Links, Name, Tags, writeBodies } from './fields.js';
import { Meta } from './envelopes.js';

// ---- edge-routers (management API) --------------------------------------------------------------------------

const writable = {
  name: Name,
  roleAttributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  disabled: Type.Optional(Type.Boolean()),
  cost: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  noTraversal: Type.Optional(Type.Boolean()),
  isTunnelerEnabled: Type.Optional(Type.Boolean()),
  appData: Type.Optional(Tags),
  tags: Type.Optional(Tags),
};
export const EdgeRouterBodies = writeBodies(writable, ['configs', 'ctrlChanListeners']);
const NullableString = Type.Union([Type.String(), Type.Null()]);
export const EdgeRouterDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    roleAttributes: Type.Array(Type.String()),
    disabled: Type.Boolean(),
    cost: Type.Integer(),
    noTraversal: Type.Boolean(),
    isTunnelerEnabled: Type.Boolean(),
    appData: Tags,
    hostname: Type.String(),
    supportedProtocols: Type.Record(Type.String(), Type.String()),
    isOnline: Type.Boolean(),
    syncStatus: Type.String(),
    isVerified: Type.Boolean(),
    fingerprint: NullableString,
    certPem: NullableString,
    enrollmentToken: NullableString,
    enrollmentJwt: NullableString,
    enrollmentCreatedAt: NullableString,
    enrollmentExpiresAt: NullableString,
  },
  { additionalProperties: true },
);
export type EdgeRouterWire = Static<typeof EdgeRouterDetail>;
/** What a create and a re-enroll answer: the one-time enrollment token, shown only then. */
export const RouterEnrollmentShown = Type.Object({
  data: Type.Object({
    id: Type.String(),
    _links: Links,
    enrollmentToken: Type.String(),
    enrollmentExpiresAt: Type.String(),
  }),
  meta: Meta,
});
export type RouterEnrollmentWire = Static<typeof RouterEnrollmentShown.properties.data>;

// ---- the router's enrollment and the identity's routers (client API) ------------------------------------------

export const RouterEnrollBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 512 }),
  certPem: Type.String({ minLength: 1, maxLength: 16_384 }),
});
export const RouterEnrollReply = Type.Object({
  edgeRouterId: Type.String(),
  name: Type.String(),
  secret: Type.String(),
});
export const IdentityRouterDetail = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    hostname: Type.String(),
    urls: Type.Record(Type.String(), Type.String()),
    supportedProtocols: Type.Record(Type.String(), Type.String()),
    isOnline: Type.Boolean(),
    cost: Type.Integer(),
    noTraversal: Type.Boolean(),
    disabled: Type.Boolean(),
    syncStatus: Type.String(),
    fingerprint: Type.String(),
  },
  { additionalProperties: true },
);
