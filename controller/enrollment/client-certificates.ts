/**
 * Client certificates for enrolling identities: a PKCS#10 request is checked (its own signature must verify,
 * its key must be EC P-256 or P-384, or RSA of 2048 to 8192 bits) and answered with a certificate from the
 * controller's CA for client authentication, its common name the identity's id, valid for a year. Nothing
 * the request asks for beyond its key is copied: names and extensions are the controller's choice.
 */
import { createHash, createPublicKey, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { ControllerCa } from '../platform/keys/controller-ca.js';

const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const VALIDITY_MS = 365 * 24 * 3600 * 1000;
const EC_CURVES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384' };
const RSA_MIN_BITS = 2048;
// Larger keys only cost verification time and buy nothing.
const RSA_MAX_BITS = 8192;

/** The request was not one to sign; `reason` says why, for the answer's `cause`. */
export class CsrRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface IssuedCertificate {
  certPem: string;
  /** SHA-256 of the certificate, lowercase hex: what sign-in looks the identity up by */
  fingerprint: string;
}

export async function issueClientCertificate(
  ca: ControllerCa,
  csrPem: string,
  identityId: string,
  now: Date,
): Promise<IssuedCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  if (!/-----BEGIN (NEW )?CERTIFICATE REQUEST-----/.test(csrPem))
    throw new CsrRefused('must be a PEM certificate request (-----BEGIN CERTIFICATE REQUEST-----)');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(csrPem.trim());
  } catch {
    throw new CsrRefused('is not a readable PKCS#10 certificate request');
  }
  const keyType = checkKeyType(Buffer.from(csr.publicKey.rawData));
  let signed = false;
  try {
    signed = await csr.verify();
  } catch {
    signed = false;
  }
  if (!signed) throw new CsrRefused('its signature does not verify with its own key');

  const caCert = new x509.X509Certificate(ca.cert.raw);
  const notAfter = new Date(Math.min(now.getTime() + VALIDITY_MS, caCert.notAfter.getTime()));
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${identityId}`,
    issuer: caCert.subjectName,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
    publicKey: csr.publicKey,
    signingKey: ca.signingKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | (keyType === 'rsa' ? x509.KeyUsageFlags.keyEncipherment : 0),
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.SubjectKeyIdentifierExtension.create(csr.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return {
    certPem: cert.toString('pem'),
    fingerprint: createHash('sha256').update(Buffer.from(cert.rawData)).digest('hex'),
  };
}

/** The key's type when it is one to certify; a CsrRefused naming what it is otherwise. */
function checkKeyType(spki: Buffer): 'ec' | 'rsa' {
  let key;
  try {
    key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    throw new CsrRefused('its public key cannot be read');
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'ec' && EC_CURVES[details.namedCurve ?? '']) return 'ec';
  if (
    key.asymmetricKeyType === 'rsa' &&
    (details.modulusLength ?? 0) >= RSA_MIN_BITS &&
    (details.modulusLength ?? 0) <= RSA_MAX_BITS
  )
    return 'rsa';
  const what =
    key.asymmetricKeyType === 'ec'
      ? `an EC key on curve ${details.namedCurve ?? 'unknown'}`
      : key.asymmetricKeyType === 'rsa'
        ? `an RSA key of ${details.modulusLength} bits`
        : `a ${key.asymmetricKeyType ?? 'unknown'} key`;
  throw new CsrRefused(
    `its key is ${what}; use EC P-256 or P-384, or RSA of ${RSA_MIN_BITS} to ${RSA_MAX_BITS} bits`,
  );
}
