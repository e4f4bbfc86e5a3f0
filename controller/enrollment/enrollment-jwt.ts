/**
 * The enrollment JWT: ES256, signed with the controller CA's key, its `kid` the CA certificate's SHA-256.
 *
 * Why the CA's key: it exists in every way the controller runs (plain HTTP on loopback has no TLS key, and an
 * administrator's `--tls-cert` may be RSA or renewed by their own PKI), it is kept 0600 beside the
 * certificate, and the party that issues the certificate is the one that vouches for the token. Clients check
 * the signature with the key `/enroll/jwks` publishes.
 */
import { sign } from 'node:crypto';
import type { EnrollmentClaims, EnrollmentJwtHeader } from '../../src/api/enrollment.js';
import type { ControllerCa } from './controller-ca.js';

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function signEnrollmentJwt(ca: ControllerCa, claims: EnrollmentClaims): string {
  const header: EnrollmentJwtHeader = { alg: 'ES256', typ: 'JWT', kid: ca.fingerprint };
  const input = `${part(header)}.${part(claims)}`;
  // JWS wants the raw r||s form (IEEE P1363), not DER.
  const signature = sign('sha256', Buffer.from(input), { key: ca.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** The CA's public key as a JWK set, with the certificate itself (`x5c`) for clients that want the CA. */
export function enrollmentJwks(ca: ControllerCa) {
  const jwk = ca.cert.publicKey.export({ format: 'jwk' }) as {
    kty: string;
    crv: string;
    x: string;
    y: string;
  };
  return {
    keys: [
      {
        kty: jwk.kty,
        crv: jwk.crv,
        x: jwk.x,
        y: jwk.y,
        kid: ca.fingerprint,
        alg: 'ES256',
        use: 'sig',
        x5c: [ca.cert.raw.toString('base64')],
      },
    ],
  };
}
