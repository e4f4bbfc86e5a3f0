/**
 * Checks an enrollment JWT the way a client must before trusting it: an enrollment token at all, not expired,
 * and signed (ES256) by the key the controller it names publishes at `/enroll/jwks`. The signature is
 * checked with node:crypto against that key, never by trusting the header's algorithm.
 */
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import {
  decodeEnrollmentJwt,
  type EnrollmentClaims,
  type EnrollmentJwtHeader,
} from '../../api/enrollment.js';
import { EnrollmentRefused } from './enrollment-refused.js';

/** The token read without its signature checked: what to check it against comes from the controller it names. */
export interface DecodedEnrollmentJwt {
  jwt: string;
  header: EnrollmentJwtHeader;
  claims: EnrollmentClaims;
}

export interface JsonWebKeySet {
  keys: (JsonWebKey & { kid?: string; alg?: string; use?: string })[];
}

/** Decodes and checks what can be checked offline: the shape, the algorithm and the expiry. */
export function readEnrollmentJwt(text: string, now: Date): DecodedEnrollmentJwt {
  const jwt = text.trim();
  let decoded: ReturnType<typeof decodeEnrollmentJwt>;
  try {
    decoded = decodeEnrollmentJwt(jwt);
  } catch (error) {
    // decodeEnrollmentJwt words its own refusals; anything else is base64 or JSON failing on garbage.
    const own = error instanceof Error && /^not an? (enrollment )?JWT/.test(error.message);
    const reason = own ? error.message : 'its parts are not base64url JSON';
    throw new EnrollmentRefused(`this is not an enrollment token (${reason})`);
  }
  const { header, claims } = decoded;
  if (header?.alg !== 'ES256')
    throw new EnrollmentRefused(
      `this is not an enrollment token (it is signed with ${String(header?.alg)}, not ES256)`,
    );
  if (claims.exp * 1000 <= now.getTime())
    throw new EnrollmentRefused(
      `this enrollment token expired at ${new Date(claims.exp * 1000).toISOString()}; ask your administrator for a new one`,
    );
  return { jwt, header, claims };
}

/**
 * Throws EnrollmentRefused unless the JWT's signature verifies with the key of the set its `kid` names (the
 * only key, when the header names none).
 */
export function checkEnrollmentSignature(token: DecodedEnrollmentJwt, jwks: unknown): void {
  const keys = isKeySet(jwks) ? jwks.keys : [];
  const kid = token.header.kid;
  const candidates = keys.filter((k) => (kid ? k.kid === kid : keys.length === 1));
  const key = candidates[0];
  if (!key)
    throw new EnrollmentRefused(
      `the controller at ${token.claims.iss} does not publish the key this token was signed with; it was not issued there`,
    );
  if (key.kty !== 'EC' || key.crv !== 'P-256' || (key.alg !== undefined && key.alg !== 'ES256'))
    throw new EnrollmentRefused(`the controller's enrollment key is not an ES256 (EC P-256) key`);
  const [header, payload, signature] = token.jwt.split('.') as [string, string, string];
  let valid = false;
  try {
    valid = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      // JWS carries the raw r||s form (IEEE P1363), not DER.
      {
        key: createPublicKey({ key: { kty: key.kty, crv: key.crv, x: key.x, y: key.y }, format: 'jwk' }),
        dsaEncoding: 'ieee-p1363',
      },
      Buffer.from(signature, 'base64url'),
    );
  } catch {
    valid = false;
  }
  if (!valid)
    throw new EnrollmentRefused(
      `this enrollment token's signature does not verify with the key of ${token.claims.iss}; it was altered or not issued there`,
    );
}

function isKeySet(value: unknown): value is JsonWebKeySet {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { keys?: unknown }).keys) &&
    (value as { keys: unknown[] }).keys.every((k) => typeof k === 'object' && k !== null)
  );
}
