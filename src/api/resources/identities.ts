/**
 * Identities on the wire: the management API's `identities` (bodies and entity), the `enrollment` an identity
 * create may ask for, the CSV import's answer, `authenticators`, and the client API's `current-identity`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Username } from '../schemas.js';
import {
  IdentityEnrollmentSummariesSchema as IdentityEnrollmentSummaries,
  IdentityEnrollmentsSchema as IdentityEnrollments,
} from '../schemas-enrollment.js';
import {
  Attributes,
  BaseEntity,
  DateTime,
  EntityRef,
  ExternalId,
  Name,
  Reference,
  Tags,
  writeBodies,
} from './fields.js';
import { Meta } from './envelopes.js';
import { IDENTITY_TYPES } from './vocabulary.js';

// ---- identities -----------------------------------------------------------------------------------------

/** The `enrollment` of an identity create: one method, `{ott: true}` or `{updb: "<username>"}`. */
export const EnrollmentRequest = Type.Object(
  {
    ott: Type.Optional(Type.Boolean()),
    updb: Type.Optional(Type.Union([Username, Type.Null()])),
    ottca: Type.Optional(Type.Union([Reference, Type.Null()])),
  },
  {
    additionalProperties: false,
    description:
      'a one-time enrollment for the new identity: `{"ott": true}` (a client certificate for a CSR) or ' +
      '`{"updb": "<username>"}` (a password login); its token and JWT then show in the identity\'s `enrollment`',
  },
);

const IdentityType = Type.Union(IDENTITY_TYPES.map((t) => Type.Literal(t)));
const writable = {
  name: Name,
  type: IdentityType,
  isAdmin: Type.Boolean(),
  roleAttributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  authPolicyId: Type.Optional(Type.Union([Reference, Type.Null()])),
  externalId: Type.Optional(Type.Union([ExternalId, Type.Null()])),
  disabled: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Tags),
  // Taken by a create only (a PUT or PATCH with it is refused): POST /enrollments issues one later.
  enrollment: Type.Optional(EnrollmentRequest),
};
export const { create: IdentityCreate, patch: IdentityPatch } = writeBodies(writable, [
  'appData',
  'defaultHostingCost',
  'defaultHostingPrecedence',
  'permissions',
  'serviceHostingCosts',
  'serviceHostingPrecedences',
]);

export const IdentityDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    type: EntityRef,
    typeId: Type.String(),
    isAdmin: Type.Boolean(),
    isDefaultAdmin: Type.Boolean(),
    isMfaEnabled: Type.Boolean(),
    roleAttributes: Type.Array(Type.String()),
    authPolicyId: Type.String(),
    authPolicy: EntityRef,
    authenticators: Type.Object({}, { additionalProperties: true }),
    enrollment: IdentityEnrollments,
    hasApiSession: Type.Boolean(),
    disabled: Type.Boolean(),
    externalId: Type.Union([Type.String(), Type.Null()]),
    envInfo: Type.Object({}, { additionalProperties: true }),
    sdkInfo: Type.Object({}, { additionalProperties: true }),
    lastActivityAt: Type.Optional(Type.Union([DateTime, Type.Null()])),
    permissions: Type.Array(Type.String()),
  },
  { additionalProperties: true },
);
export type IdentityWire = Static<typeof IdentityDetail>;

/**
 * `GET /edge/client/v1/current-identity`: the identity as it sees itself, its outstanding enrollments without
 * their secrets (the serializer drops anything the summary schema does not name, should a view ever add it).
 */
export const ClientIdentityDetail = Type.Object(
  { ...IdentityDetail.properties, enrollment: IdentityEnrollmentSummaries },
  { additionalProperties: true },
);

// ---- POST /identities/import ------------------------------------------------------------------------------

/** The CSV an import takes, at most `maxBytes` long (the body limit, which answers 413 first). */
export const identityImportBody = (maxBytes: number) =>
  Type.String({ maxLength: maxBytes, description: 'the CSV, header line first' });
const ImportRow = Type.Object({
  row: Type.Integer({ description: "the row's line in the file (the header is line 1)" }),
  name: Type.String(),
  id: Type.Optional(Type.String()),
  enrollment: Type.Optional(
    Type.Object({
      method: Type.String(),
      jwt: Type.String(),
      expiresAt: Type.String({ format: 'date-time' }),
    }),
  ),
  error: Type.Optional(Type.Object({ code: Type.String(), field: Type.String(), message: Type.String() })),
});
export const IdentityImportAnswer = Type.Object({
  data: Type.Array(ImportRow),
  meta: Type.Intersect([Meta, Type.Object({ created: Type.Integer(), failed: Type.Integer() })]),
});

// ---- authenticators ---------------------------------------------------------------------------------------

// The same bounds OpenZiti's /authenticate accepts (Username), so every authenticator made here can log in.
const Password = Type.String({ minLength: 5, maxLength: 100 });
export const AuthenticatorCreate = writeBodies(
  {
    method: Type.Literal('updb'),
    identityId: Reference,
    username: Username,
    password: Password,
    tags: Type.Optional(Tags),
  },
  ['certPem'],
).create;
export const { create: AuthenticatorUpdate, patch: AuthenticatorPatch } = writeBodies({
  username: Username,
  password: Password,
  tags: Type.Optional(Tags),
});
export const AuthenticatorDetail = Type.Object({
  ...BaseEntity,
  method: Type.String(),
  identityId: Type.String(),
  identity: EntityRef,
  username: Type.Optional(Type.String()),
  fingerprint: Type.Optional(Type.String()),
  certPem: Type.Optional(Type.String()),
  isIssuedByNetwork: Type.Optional(Type.Boolean()),
  expiresAt: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: "Postern: when a certificate login's certificate expires (null if it cannot be read)",
    }),
  ),
});
export type AuthenticatorWire = Static<typeof AuthenticatorDetail>;
