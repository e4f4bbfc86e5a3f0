/**
 * What the controller serves HTTPS with. Plain HTTP is for loopback only: on any other address credentials
 * and session tokens would cross the network in clear. There the administrator's certificate is used
 * (`--tls-cert`/`--tls-key`), or else a self-signed one made on the first start and kept in the data folder;
 * its fingerprint is printed for agents to pin, or the certificate file handed to them to trust (`--controller-ca`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { ControllerConfig } from '../config.js';
import { createSelfSignedCertificate, fingerprintOf } from '../../src/common/self-signed-certificate.js';
import { isLoopbackHost } from '../loopback.js';

export const SELF_SIGNED_CERT_FILE = 'tls-cert.pem';
export const SELF_SIGNED_KEY_FILE = 'tls-key.pem';

export interface TlsIdentity {
  cert: string;
  key: string;
  /** SHA-256 fingerprint of the certificate, as agents pin it */
  fingerprint: string;
  /** where the certificate is: the administrator's file, or the self-signed one in the data folder */
  certFile: string;
  selfSigned: boolean;
}

export { isLoopbackHost };

/** The TLS identity to serve with, or undefined for plain HTTP (loopback without a certificate or --https). */
export async function resolveTlsIdentity(config: ControllerConfig): Promise<TlsIdentity | undefined> {
  if (config.tlsCert && config.tlsKey) {
    const cert = readFileSync(config.tlsCert, 'utf8');
    return {
      cert,
      key: readFileSync(config.tlsKey, 'utf8'),
      fingerprint: fingerprintOf(cert),
      certFile: config.tlsCert,
      selfSigned: false,
    };
  }
  // Loopback may stay plain HTTP, unless asked (--https): certificate sign-in needs TLS.
  if (isLoopbackHost(config.host) && !config.https) return undefined;
  const certFile = join(config.dataDir, SELF_SIGNED_CERT_FILE);
  const keyFile = join(config.dataDir, SELF_SIGNED_KEY_FILE);
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    // Kept across restarts: agents that pinned it keep working.
    const made = await createSelfSignedCertificate('postern-controller', namesOf(config.host));
    writeFileSync(keyFile, made.keyPem, { mode: 0o600 });
    writeFileSync(certFile, made.certPem, { mode: 0o600 });
  }
  const cert = readFileSync(certFile, 'utf8');
  return {
    cert,
    key: readFileSync(keyFile, 'utf8'),
    fingerprint: fingerprintOf(cert),
    certFile,
    selfSigned: true,
  };
}

/** The names agents may reach this machine by: the bound address, the host name, every interface address. */
function namesOf(host: string): string[] {
  const names = [hostname()];
  if (host !== '0.0.0.0' && host !== '::') names.push(host.replace(/^\[|\]$/g, ''));
  for (const list of Object.values(networkInterfaces()))
    for (const address of list ?? []) if (!address.internal) names.push(address.address.replace(/%.*$/, ''));
  return names;
}
