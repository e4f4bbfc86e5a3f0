/**
 * Checks an enrollment JWT the way a client must before trusting it: an enrollment token at all, not expired,
 * and signed by the key the controller it names publishes at `/enroll/jwks` (the controller's TLS key: EC
 * P-256/384/521 or RSA, as OpenZiti's). The signature is checked with node:crypto against that key, with the
 * algorithm that key's type and curve call for: the header's `alg` must agree with it, never choose it.
 */
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import {
  ENROLLMENT_JWT_ALGORITHMS,
  decodeEnrollmentJwt,
  type EnrollmentClaims,
  type EnrollmentJwtAlgorithm,
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
  if (!(ENROLLMENT_JWT_ALGORITHMS as readonly unknown[]).includes(header?.alg))
    throw new EnrollmentRefused(
      `this is not an enrollment token (it is signed with ${String(header?.alg)}, not ${ENROLLMENT_JWT_ALGORITHMS.join(', ')})`,
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
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: publicPartOf(key), format: 'jwk' });
  } catch {
    throw new EnrollmentRefused(`the controller's enrollment key is not a key this agent can read`);
  }
  const expected = algorithmOf(publicKey);
  if (!expected || expected.alg !== token.header.alg || (key.alg !== undefined && key.alg !== expected.alg))
    throw new EnrollmentRefused(
      `this enrollment token is signed with ${token.header.alg}, which the controller's key (${key.alg ?? key.kty}) does not sign with`,
    );
  const [header, payload, signature] = token.jwt.split('.') as [string, string, string];
  let valid = false;
  try {
    valid = verify(
      expected.hash,
      Buffer.from(`${header}.${payload}`),
      // JWS carries an ECDSA signature in the raw r||s form (IEEE P1363), not DER.
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
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

const CURVES: Record<string, { alg: EnrollmentJwtAlgorithm; hash: string }> = {
  prime256v1: { alg: 'ES256', hash: 'sha256' },
  secp384r1: { alg: 'ES384', hash: 'sha384' },
  secp521r1: { alg: 'ES512', hash: 'sha512' },
};

/** The one algorithm a public key verifies enrollment tokens with. */
function algorithmOf(key: KeyObject): { alg: EnrollmentJwtAlgorithm; hash: string } | undefined {
  if (key.asymmetricKeyType === 'rsa') return { alg: 'RS256', hash: 'sha256' };
  if (key.asymmetricKeyType === 'ec') return CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
  return undefined;
}

/** Only the public members of a JWK (never a private `d` a careless server might publish). */
function publicPartOf(key: JsonWebKey): JsonWebKey {
  const { kty, crv, x, y, n, e } = key;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined));
}

function isKeySet(value: unknown): value is JsonWebKeySet {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { keys?: unknown }).keys) &&
    (value as { keys: unknown[] }).keys.every((k) => typeof k === 'object' && k !== null)
  );
}
