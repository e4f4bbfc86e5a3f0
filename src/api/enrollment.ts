/**
 * Identity enrollment on the wire: the enrollment JWT an administrator hands to a user, what
 * `POST /enroll?method=ott|updb&token=` takes and answers, the enrollments the management API shows, and the
 * per-row answer of the CSV import. Pure TypeScript (no Node imports), for the agent and the renderer; the
 * bodies are typed from the controller's schemas (`schemas-enrollment.ts`, imported as types only).
 */
import type { Static } from '@sinclair/typebox';
import type { BaseEntity, EntityRef } from './envelopes.js';
import type {
  EnrollmentCertsSchema,
  EnrollmentDetailSchema,
  IdentityEnrollmentSchema,
} from './schemas-enrollment.js';

export const ENROLLMENT_METHODS = ['ott', 'updb'] as const;
export type EnrollmentMethod = (typeof ENROLLMENT_METHODS)[number];

export const ENROLL_PATHS = {
  /** `?method=ott|updb&token=<jti>`; OpenZiti's clients post here */
  enroll: '/enroll',
  ott: '/enroll/ott',
  updb: '/enroll/updb',
  /** the public key that signs enrollment JWTs (a JWKS), to check a JWT before trusting it */
  jwks: '/enroll/jwks',
} as const;

/** The content type OpenZiti's clients send a CSR with, and may ask the certificate back in. */
export const PEM_CONTENT_TYPE = 'application/x-pem-file';

/**
 * The claims of an enrollment JWT (signed with the controller's TLS key, or its CA's over plain HTTP; `kid` is
 * that certificate's SHA-256). OpenZiti's clients read `iss`, `jti` and `em`; `sub` is the identity's id.
 */
export interface EnrollmentClaims {
  /** the controller's URL: where to enroll (`<iss>/edge/client/v1/enroll`) */
  iss: string;
  /** the identity's id; an `ott` certificate's common name */
  sub: string;
  /** the one-time token, sent as `?token=` */
  jti: string;
  em: EnrollmentMethod;
  /** seconds since the epoch */
  exp: number;
  iat: number;
  /**
   * Postern's own claim: the SHA-256 (lowercase hex) of the TLS certificate the controller served when the
   * JWT was shown, so a client that got the JWT from its administrator can pin the controller by it. Absent
   * when the controller serves plain HTTP (loopback only).
   */
  tlsCertSha256?: string;
}

/** The algorithms an enrollment JWT is signed with: the signing key's (EC P-256/384/521 or RSA). */
export const ENROLLMENT_JWT_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256'] as const;
export type EnrollmentJwtAlgorithm = (typeof ENROLLMENT_JWT_ALGORITHMS)[number];

/** The JWT's header: the algorithm with the signing key's id. */
export interface EnrollmentJwtHeader {
  alg: EnrollmentJwtAlgorithm;
  typ: 'JWT';
  kid: string;
}

/**
 * A router's enrollment JWT, as OpenZiti's management API shows it on the router until it enrolls: `em` is
 * OpenZiti's `erott` (edge router one-time token), `sub` the router's id, `jti` the token the router presents.
 */
export type RouterEnrollmentClaims = Omit<EnrollmentClaims, 'em'> & { em: 'erott' };

/**
 * The JWT's header and claims, read without checking its signature (check it against `/enroll/jwks` before
 * trusting the controller it names). Throws when it is not an enrollment JWT.
 */
export function decodeEnrollmentJwt(jwt: string): { header: EnrollmentJwtHeader; claims: EnrollmentClaims } {
  const parts = jwt.trim().split('.');
  if (parts.length !== 3) throw new Error('not a JWT: it must have three parts separated by dots');
  const [header, claims] = [parts[0]!, parts[1]!].map((part) => JSON.parse(base64UrlDecode(part)) as unknown);
  const c = claims as Partial<EnrollmentClaims>;
  if (
    typeof c.iss !== 'string' ||
    typeof c.sub !== 'string' ||
    typeof c.jti !== 'string' ||
    typeof c.exp !== 'number' ||
    !ENROLLMENT_METHODS.includes(c.em as EnrollmentMethod)
  )
    throw new Error('not an enrollment JWT: it needs iss, sub, jti, exp and em (ott or updb)');
  return { header: header as EnrollmentJwtHeader, claims: c as EnrollmentClaims };
}

function base64UrlDecode(text: string): string {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/**
 * What `POST /enroll?method=ott` answers in `data` (OpenZiti's `enrollmentCerts`): `cert`, the client
 * certificate (PEM, common name the identity's id, valid for client authentication), and `ca`, the controller
 * CA's certificate (PEM), which issued it. Optional in the schema; the controller always sends both.
 */
export type EnrollmentCerts = Required<Static<typeof EnrollmentCertsSchema>>;

/** One outstanding enrollment, as the identity's `enrollment` field shows it (by method; `username`: `updb`). */
export type IdentityEnrollment = Static<typeof IdentityEnrollmentSchema>;

export type IdentityEnrollments = Partial<Record<EnrollmentMethod, IdentityEnrollment>>;

type WireEnrollment = Static<typeof EnrollmentDetailSchema>;

/** `GET /edge/management/v1/enrollments[/<id>]`. */
export type EnrollmentDetail = BaseEntity &
  Pick<WireEnrollment, 'token' | 'jwt' | 'expiresAt' | 'issuedAt' | 'identityId' | 'caId' | 'username'> & {
    method: EnrollmentMethod;
    identity: EntityRef;
  };

/** The CSV `POST /edge/management/v1/identities/import` takes: this header line, then one identity a row. */
export const IDENTITY_IMPORT_COLUMNS = ['name', 'type', 'roleAttributes', 'isAdmin', 'enrollment'] as const;
export const IDENTITY_IMPORT_CONTENT_TYPE = 'text/csv';

/** One row's answer: what was created, or why not (nothing of a refused row is stored). */
export interface IdentityImportRow {
  /** the row's line number in the file (the header is line 1) */
  row: number;
  name: string;
  id?: string;
  enrollment?: { method: EnrollmentMethod; jwt: string; expiresAt: string };
  error?: { code: string; field: string; message: string };
}
