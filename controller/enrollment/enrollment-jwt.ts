/**
 * The enrollment JWT, signed with the key of the certificate the controller serves TLS with (where it serves
 * TLS), its `kid` that certificate's SHA-256 fingerprint (the one agents pin).
 *
 * Why the TLS key: OpenZiti's clients (`ziti edge enroll`, the tunnelers, the SDKs) check the token by
 * connecting to its issuer and verifying the signature with the public key of the certificate the server
 * presents; a token signed with any other key is refused there. The algorithm follows that key, as
 * OpenZiti's: ES256/ES384/ES512 for EC P-256/P-384/P-521, RS256 for RSA. Over plain HTTP (loopback only) there
 * is no TLS key, and the controller CA's (ES256) signs instead. Either way `/enroll/jwks` publishes the key,
 * which is how Postern's own agent checks it.
 */
import { sign, type KeyObject, type X509Certificate } from 'node:crypto';
import type {
  EnrollmentClaims,
  EnrollmentJwtAlgorithm,
  EnrollmentJwtHeader,
  RouterEnrollmentClaims,
} from '../../src/api/enrollment.js';

/** A key and its certificate (the controller CA, or the TLS identity): what signs and what names the key. */
export interface JwtSigner {
  privateKey: KeyObject;
  cert: X509Certificate;
  /** SHA-256 of the certificate, lowercase hex: the JWT's `kid` */
  fingerprint: string;
}

const ALGORITHMS: Record<string, { alg: EnrollmentJwtAlgorithm; hash: string }> = {
  prime256v1: { alg: 'ES256', hash: 'sha256' },
  secp384r1: { alg: 'ES384', hash: 'sha384' },
  secp521r1: { alg: 'ES512', hash: 'sha512' },
  rsa: { alg: 'RS256', hash: 'sha256' },
};

/** The JWS algorithm a key signs with, or undefined for a key OpenZiti's clients cannot check (Ed25519, DSA). */
export function jwtAlgorithmOf(key: KeyObject): { alg: EnrollmentJwtAlgorithm; hash: string } | undefined {
  if (key.asymmetricKeyType === 'rsa') return ALGORITHMS.rsa;
  if (key.asymmetricKeyType === 'ec') return ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''];
  return undefined;
}

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function algorithmFor(signer: JwtSigner): { alg: EnrollmentJwtAlgorithm; hash: string } {
  const algorithm = jwtAlgorithmOf(signer.privateKey);
  if (!algorithm)
    throw new Error(`an enrollment JWT cannot be signed with a ${signer.privateKey.asymmetricKeyType} key`);
  return algorithm;
}

export function signEnrollmentJwt(
  signer: JwtSigner,
  claims: EnrollmentClaims | RouterEnrollmentClaims,
): string {
  const { alg, hash } = algorithmFor(signer);
  const header: EnrollmentJwtHeader = { alg, typ: 'JWT', kid: signer.fingerprint };
  const input = `${part(header)}.${part(claims)}`;
  // JWS wants an ECDSA signature in the raw r||s form (IEEE P1363), not DER; RSA's is as it comes.
  const signature = sign(hash, Buffer.from(input), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** The signer's public key as a JWK set, with its certificate (`x5c`). */
export function enrollmentJwks(signer: JwtSigner) {
  const { kty, ...jwk } = signer.cert.publicKey.export({ format: 'jwk' });
  return {
    keys: [
      {
        kty: String(kty),
        ...jwk,
        kid: signer.fingerprint,
        alg: algorithmFor(signer).alg,
        use: 'sig',
        x5c: [signer.cert.raw.toString('base64')],
      },
    ],
  };
}
