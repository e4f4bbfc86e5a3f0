/**
 * A TLS identity for a server nobody issued a certificate to: an ECDSA P-256 key and a self-signed
 * certificate, made once. Clients do not trust it through a CA: they pin its SHA-256 fingerprint (the
 * router's comes from the controller's authenticated API; the controller's own is printed at its start).
 */
import { X509Certificate, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { normaliseFingerprint } from '../api/data-plane.js';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface SelfSignedCertificate {
  certPem: string;
  keyPem: string;
}

/** A self-signed certificate naming the hosts clients may reach the server by (informational: clients pin). */
export async function createSelfSignedCertificate(
  commonName: string,
  hostnames: readonly string[],
): Promise<SelfSignedCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const names = [...new Set(['localhost', '127.0.0.1', '::1', ...hostnames])];
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(16).toString('hex'),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + TEN_YEARS_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        names.map((value) => ({ type: isIP(value) ? ('ip' as const) : ('dns' as const), value })),
      ),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never));
  const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trim()}\n-----END PRIVATE KEY-----\n`;
  return { certPem: cert.toString('pem'), keyPem };
}

export function fingerprintOf(certPem: string): string {
  return normaliseFingerprint(new X509Certificate(certPem).fingerprint256);
}
