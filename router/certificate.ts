/**
 * The router's TLS identity: an ECDSA P-256 key and a self-signed certificate, made once when the router
 * enrolls. Agents do not trust it through a CA: they pin its SHA-256 fingerprint, which the controller
 * recorded at enrollment and hands out only over its authenticated API.
 */
import { X509Certificate, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { normaliseFingerprint } from '../src/api/data-plane.js';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface RouterCertificate {
  certPem: string;
  keyPem: string;
}

/** A self-signed certificate naming the hosts agents may reach the router by (informational: agents pin). */
export async function createRouterCertificate(hostnames: readonly string[]): Promise<RouterCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const names = [...new Set(['localhost', '127.0.0.1', '::1', ...hostnames])];
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(16).toString('hex'),
    name: `CN=postern-router`,
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
