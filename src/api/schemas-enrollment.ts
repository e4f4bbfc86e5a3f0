/**
 * The TypeBox schemas of identity enrollment on the wire, defined once: what `POST /enroll` takes and answers
 * (client API) and the enrollments the management API shows and creates. The controller validates,
 * serialises and publishes its OpenAPI documents with them; `enrollment.ts` derives the agent's and the
 * console's types from them with `Static`, importing this module as types only (see `schemas.ts`).
 */
import { Type } from '@sinclair/typebox';
import { BaseEntityFields, DateTime, EntityRefSchema, Username } from './schemas.js';

// ---- POST /enroll (client API) ------------------------------------------------------------------------

/** A CSR of the largest accepted key (RSA 8192) is about 3 KiB as PEM; this leaves room and no more. */
export const ENROLL_BODY_LIMIT = 64 * 1024;

const Pem = Type.String({
  minLength: 1,
  maxLength: ENROLL_BODY_LIMIT,
  description: 'a PEM PKCS#10 certificate request',
});
export const EnrollTokenSchema = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'the `jti` of the enrollment JWT',
});
const ignored = Type.Optional(Type.Unknown({ description: 'accepted for OpenZiti clients; not used' }));

/**
 * Body of `POST /enroll?method=ott|updb&token=` as JSON: `csr` (or OpenZiti's `clientCsr`) for `ott`,
 * `password` (with the enrollment's `username`, optionally) for `updb`.
 */
export const EnrollBodySchema = Type.Object(
  {
    csr: Type.Optional(Pem),
    clientCsr: Type.Optional(Pem),
    token: Type.Optional(EnrollTokenSchema),
    username: Type.Optional(Username),
    // Its least length is the identity's auth policy's (5 at least), checked with the enrollment.
    password: Type.Optional(Type.String({ maxLength: 100 })),
    name: ignored,
    serverCertCsr: ignored,
    certCsr: ignored,
  },
  {
    additionalProperties: false,
    description:
      "JSON as here; a PEM body (`application/x-pem-file` or `text/plain`, what OpenZiti's SDKs send) is read as " +
      'its `csr`',
  },
);

/** What `POST /enroll?method=ott` answers in `data` (OpenZiti's `enrollmentCerts`). */
export const EnrollmentCertsSchema = Type.Object({
  cert: Type.Optional(Type.String({ description: 'the client certificate (PEM)' })),
  ca: Type.Optional(Type.String({ description: "the controller CA's certificate (PEM)" })),
});

// ---- Enrollments (management API) ---------------------------------------------------------------------

/** `GET /edge/management/v1/enrollments[/<id>]` (OpenZiti's `enrollmentDetail`). */
export const EnrollmentDetailSchema = Type.Object(
  {
    ...BaseEntityFields,
    method: Type.String(),
    token: Type.String(),
    jwt: Type.String(),
    expiresAt: DateTime,
    issuedAt: DateTime,
    identityId: Type.String(),
    identity: EntityRefSchema,
    caId: Type.Null(),
    username: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

/** One outstanding enrollment, as the identity's `enrollment` field shows it (by method). */
export const IdentityEnrollmentSchema = Type.Object({
  id: Type.String(),
  token: Type.String(),
  jwt: Type.String(),
  expiresAt: DateTime,
  issuedAt: DateTime,
  username: Type.Optional(Type.String()),
});
export const IdentityEnrollmentsSchema = Type.Object(
  { ott: Type.Optional(IdentityEnrollmentSchema), updb: Type.Optional(IdentityEnrollmentSchema) },
  {
    description: 'outstanding enrollments by method: token and JWT until used (expired ones too, to refresh)',
  },
);

/** One outstanding enrollment as the identity itself sees it (client API): never its token or JWT. */
export const IdentityEnrollmentSummarySchema = Type.Object(
  { method: Type.String(), expiresAt: DateTime },
  { additionalProperties: false },
);
export const IdentityEnrollmentSummariesSchema = Type.Object(
  {
    ott: Type.Optional(IdentityEnrollmentSummarySchema),
    updb: Type.Optional(IdentityEnrollmentSummarySchema),
  },
  {
    additionalProperties: false,
    description:
      'outstanding enrollments by method, as the identity sees them: method and expiry only (secrets are ' +
      'for administrators, on the management API)',
  },
);

/** Body of `POST /edge/management/v1/enrollments`. */
export const EnrollmentCreateSchema = Type.Object(
  {
    method: Type.Union([Type.Literal('ott'), Type.Literal('updb'), Type.Literal('ottca')]),
    identityId: Type.String({ minLength: 1, maxLength: 255 }),
    expiresAt: Type.Optional(DateTime),
    username: Type.Optional(Type.Union([Username, Type.Null()])),
    caId: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    tags: Type.Optional(Type.Unknown({ description: 'accepted for OpenZiti clients; not used' })),
  },
  {
    additionalProperties: false,
    description:
      'A new enrollment for an identity: `ott` (a client certificate for a CSR) or `updb` (a password login, ' +
      "with `username`). `expiresAt` defaults to the controller's enrollment lifetime (24 hours unless " +
      '--enrollment-ttl) and may be at most a year ahead. 409 when one of the method is outstanding or the ' +
      'identity already has that kind of authenticator.',
  },
);

/** Body of `POST /edge/management/v1/enrollments/<id>/refresh`. */
export const EnrollmentRefreshSchema = Type.Object(
  { expiresAt: Type.Optional(DateTime) },
  {
    additionalProperties: false,
    description:
      'A new token and expiry (default: the enrollment lifetime from now); the old token stops working',
  },
);

/** Body of `POST /edge/management/v1/authenticators/<id>/re-enroll` (OpenZiti's `reEnroll`). */
export const ReEnrollSchema = Type.Object(
  { expiresAt: DateTime },
  {
    additionalProperties: false,
    description:
      'When the enrollment that replaces the authenticator expires (at most a year ahead). The authenticator ' +
      'is deleted and an enrollment of the same kind made: `updb` gives a `updb` enrollment for the same ' +
      'username, `cert` an `ott` one; the identity signs in again only by enrolling.',
  },
);
