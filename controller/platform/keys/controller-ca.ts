/**
 * The controller's own certificate authority: an ECDSA P-256 key and a self-signed CA certificate, made on
 * the first start in the data folder (`ca-key.pem`, `ca-cert.pem`, both 0600) and kept across restarts.
 * It signs the client certificates identities get at enrollment, and its key signs the enrollment JWTs.
 *
 * Once certificates have been issued the CA is not remade: a new one would turn every enrolled identity
 * away at sign-in, so a missing file then stops the start with the reason, like a missing master key.
 */
import {
  X509Certificate,
  createHash,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  webcrypto,
} from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

export const CA_CERT_FILE = 'ca-cert.pem';
export const CA_KEY_FILE = 'ca-key.pem';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const CA_YEARS = 10;

export interface ControllerCa {
  certPem: string;
  cert: X509Certificate;
  /** for the enrollment JWT's ES256 signature and the token key (Node's synchronous crypto) */
  privateKey: KeyObject;
  /** the same key for @peculiar/x509, which signs the client certificates */
  signingKey: CryptoKey;
  /** SHA-256 of the CA certificate, lowercase hex: the JWT's `kid` */
  fingerprint: string;
}

export class ControllerCaMissing extends Error {
  constructor(dataDir: string) {
    super(
      `certificates issued by this controller's CA are in use, but ${join(dataDir, CA_KEY_FILE)} or ` +
        `${join(dataDir, CA_CERT_FILE)} is missing; restore both from a backup. A new CA would refuse every ` +
        'enrolled identity.',
    );
  }
}

/**
 * Loads the CA from `dataDir`, making it when absent. `inUse`: certificates it issued exist, so a missing
 * file is an error rather than a reason to make a new CA.
 */
export async function loadOrCreateControllerCa(dataDir: string, inUse: boolean): Promise<ControllerCa> {
  const certFile = join(dataDir, CA_CERT_FILE);
  const keyFile = join(dataDir, CA_KEY_FILE);
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    if (inUse) throw new ControllerCaMissing(dataDir);
    // Neither, or half of a first start cut short: nothing depends on it yet, so both are made anew.
    const made = await createCa();
    writeFileSync(keyFile, made.keyPem, { mode: 0o600 });
    writeFileSync(certFile, made.certPem, { mode: 0o600 });
  }
  return readCa(readFileSync(certFile, 'utf8'), readFileSync(keyFile, 'utf8'));
}

async function readCa(certPem: string, keyPem: string): Promise<ControllerCa> {
  const cert = new X509Certificate(certPem);
  const privateKey = createPrivateKey(keyPem);
  const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });
  if (
    privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1' ||
    !spki(createPublicKey(privateKey)).equals(spki(cert.publicKey))
  )
    throw new Error(
      `${CA_KEY_FILE} is not the EC P-256 key of ${CA_CERT_FILE}; restore the pair from a backup`,
    );
  const signingKey = await webcrypto.subtle.importKey(
    'pkcs8',
    privateKey.export({ type: 'pkcs8', format: 'der' }),
    ALGORITHM,
    false,
    ['sign'],
  );
  return {
    certPem,
    cert,
    privateKey,
    signingKey: signingKey as unknown as CryptoKey,
    fingerprint: createHash('sha256').update(cert.raw).digest('hex'),
  };
}

async function createCa(): Promise<{ certPem: string; keyPem: string }> {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_YEARS);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    // No serialNumber: the generator draws 16 random bytes and encodes them as a positive integer.
    // A random suffix tells two controllers' CAs apart in a trust store.
    name: `CN=Postern controller CA ${randomBytes(4).toString('hex')}, O=Postern`,
    notBefore: new Date(now - 60_000),
    notAfter,
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as never));
  return { certPem: cert.toString('pem'), keyPem: toPem('PRIVATE KEY', pkcs8) };
}

export function toPem(label: string, der: Buffer): string {
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trim();
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}
