/**
 * The enroll routes' parameters and answers beside the bodies in ../schemas-enrollment.ts: the query every
 * `POST /enroll*` takes, the certificates an `ott` enrollment answers, and the controller's signing keys
 * (`GET /.well-known/...` JWKS) that enrollment JWTs are checked with.
 */
import { Type } from '@sinclair/typebox';
import { EnrollTokenSchema, EnrollmentCertsSchema } from '../schemas-enrollment.js';
import { Meta } from './envelopes.js';

/** Every enroll route's query: the token, and on `/enroll` the method. */
export const enrollQuery = (withMethod: boolean) =>
  Type.Object({
    ...(withMethod ? { method: Type.Optional(Type.String({ maxLength: 20 })) } : {}),
    token: Type.Optional(EnrollTokenSchema),
  });
export const EnrollmentCertsEnvelope = Type.Object({ data: EnrollmentCertsSchema, meta: Meta });
export const Jwks = Type.Object({
  keys: Type.Array(Type.Object({ kty: Type.String(), kid: Type.String() }, { additionalProperties: true })),
});
