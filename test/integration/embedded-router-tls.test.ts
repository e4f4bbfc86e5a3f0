/**
 * A controller started with the administrator's certificate (`--tls-cert`/`--tls-key`) comes up with its
 * embedded router enrolled and linked: the router trusts exactly the certificate its own controller serves,
 * whether it is self-signed or issued by a private CA for a name other than the loopback address the
 * embedded router connects to.
 */
import { webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { controllerProcessScope } from '../helpers/controller-processes.js';
import { createSelfSignedCertificate } from '../../src/common/self-signed-certificate.js';

const { newDir, start } = controllerProcessScope();
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

function pem(label: string, der: ArrayBuffer): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trim();
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

/** A private CA and a server certificate it issued for `controller.invalid` only (not 127.0.0.1). */
async function privateCaCertificate(): Promise<{ certPem: string; keyPem: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const generate = () =>
    webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
  const caKeys = await generate();
  const serverKeys = await generate();
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=test private CA',
    notBefore,
    notAfter,
    signingAlgorithm: ALGORITHM,
    keys: caKeys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=controller.invalid',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALGORITHM,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'controller.invalid' }]),
    ],
  });
  const key = await webcrypto.subtle.exportKey('pkcs8', serverKeys.privateKey as never);
  return { certPem: `${server.toString('pem')}\n${ca.toString('pem')}\n`, keyPem: pem('PRIVATE KEY', key) };
}

async function until(condition: () => boolean): Promise<boolean> {
  for (let i = 0; i < 600 && !condition(); i++) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

async function startWith(identity: { certPem: string; keyPem: string }): Promise<string> {
  const dir = newDir();
  const certFile = join(dir, 'admin-cert.pem');
  const keyFile = join(dir, 'admin-key.pem');
  writeFileSync(certFile, identity.certPem);
  writeFileSync(keyFile, identity.keyPem, { mode: 0o600 });
  const p = await start(
    ['--data-dir', join(dir, 'data'), '--port', '0', '--tls-cert', certFile, '--tls-key', keyFile],
    { POSTERN_ADMIN_PASSWORD: 'embedded-tls-admin-password' },
  );
  expect(p.url).toMatch(/^https:\/\//);
  // The embedded router's link is up once it has the controller's first snapshot.
  await until(() => /router listening on tls:\/\//.test(p.output()));
  await until(() => p.output().includes('controller link up'));
  return p.output();
}

describe('the embedded router of a controller with --tls-cert', () => {
  it('links to its controller serving a self-signed certificate', async () => {
    const output = await startWith(await createSelfSignedCertificate('admin-controller', []));
    expect(output).toContain('controller link up');
  });

  it('links to its controller serving a certificate from a private CA for another name', async () => {
    const output = await startWith(await privateCaCertificate());
    expect(output).toContain('controller link up');
  });
});
