/**
 * For enrollment tests: real keys and PKCS#10 requests (webcrypto and @peculiar/x509, as a client would make
 * them), a certificate authority of someone else's, and HTTPS requests that present a client certificate.
 */
import { X509Certificate, createPublicKey, verify, webcrypto } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import * as x509 from '@peculiar/x509';
import type { ApiResponse } from './api.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export type KeyKind = 'p256' | 'p384' | 'p521' | 'rsa1024' | 'rsa2048';

const ALGORITHMS: Record<KeyKind, RsaHashedKeyGenParams | EcKeyGenParams> = {
  p256: { name: 'ECDSA', namedCurve: 'P-256' },
  p384: { name: 'ECDSA', namedCurve: 'P-384' },
  p521: { name: 'ECDSA', namedCurve: 'P-521' },
  rsa1024: {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 1024,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  },
  rsa2048: {
    name: 'RSASSA-PKCS1-v1_5',
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: 'SHA-256',
  },
};

const signingOf = (kind: KeyKind) =>
  kind.startsWith('rsa')
    ? ALGORITHMS[kind]
    : { ...ALGORITHMS[kind], hash: kind === 'p256' ? 'SHA-256' : 'SHA-384' };

function pem(label: string, der: ArrayBuffer): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trim();
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

export interface ClientKey {
  keys: CryptoKeyPair;
  keyPem: string;
  csrPem: string;
}

/** A key of `kind` and a CSR signed by it, as an enrolling client makes them. */
export async function newCsr(kind: KeyKind = 'p256', commonName = 'enrolling-device'): Promise<ClientKey> {
  const keys = (await webcrypto.subtle.generateKey(ALGORITHMS[kind], true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${commonName}, O=Test`,
    keys,
    signingAlgorithm: signingOf(kind),
  });
  const keyPem = pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { keys, keyPem, csrPem: csr.toString('pem') };
}

/** The same CSR with its signature's last byte changed: it no longer verifies. */
export function tamperedCsr(csrPem: string): string {
  const der = Buffer.from(new x509.Pkcs10CertificateRequest(csrPem).rawData);
  der.writeUInt8(der[der.length - 1]! ^ 0x01, der.length - 1);
  return pem(
    'CERTIFICATE REQUEST',
    der.buffer.slice(der.byteOffset, der.byteOffset + der.length) as ArrayBuffer,
  );
}

/** Another authority entirely, and a client certificate it issues for `key` (PEM). */
export async function foreignCertificate(key: ClientKey, commonName: string): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const caKeys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Someone else CA',
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
  });
  const cert = await x509.X509CertificateGenerator.create({
    subject: `CN=${commonName}`,
    issuer: ca.subjectName,
    publicKey: key.keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
    extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
  });
  return cert.toString('pem');
}

/** One HTTPS request trusting `ca`, presenting `client` (certificate and key) when given. */
export function tlsRequest(
  url: string,
  options: {
    ca: string;
    client?: { cert: string; key: string };
    method?: string;
    body?: string;
    headers?: Record<string, string>;
  },
): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: options.method ?? 'POST',
        ca: options.ca,
        ...(options.client ?? {}),
        headers: {
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        // A fresh connection each time: a kept-alive one would carry another request's certificate.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          let body: unknown = text;
          if ((res.headers['content-type'] ?? '').includes('json') && text) body = JSON.parse(text);
          resolve({ status: res.statusCode ?? 0, body, headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Whether an ES256 JWT's signature verifies with the JWK given. */
export function jwtVerifies(jwt: string, jwk: Record<string, unknown>): boolean {
  const [header, claims, signature] = jwt.split('.');
  const key = createPublicKey({ key: jwk as never, format: 'jwk' });
  return verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature!, 'base64url'),
  );
}

export const certificateOf = (pemText: string) => new X509Certificate(pemText);
