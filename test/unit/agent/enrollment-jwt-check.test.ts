/**
 * The agent's check of an enrollment JWT, against JWTs and key sets the controller's own code makes (its CA,
 * `signEnrollmentJwt`, `enrollmentJwks`): a genuine token passes; one altered anywhere, signed by another
 * key, expired, or not an enrollment JWT at all is refused with one sentence. Tokens signed with the TLS keys
 * a controller may serve with (EC P-384, RSA) check as OpenZiti's clients check them: the key decides the
 * algorithm, and a header claiming another is refused.
 */
import { X509Certificate, generateKeyPairSync, webcrypto, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadOrCreateControllerCa,
  type ControllerCa,
} from '../../../controller/platform/keys/controller-ca.js';
import * as x509 from '@peculiar/x509';
import {
  enrollmentJwks,
  signEnrollmentJwt,
  type JwtSigner,
} from '../../../controller/enrollment/enrollment-jwt.js';
import type { EnrollmentClaims } from '../../../src/api/enrollment.js';
import {
  checkEnrollmentSignature,
  readEnrollmentJwt,
} from '../../../src/agent/enrollment/enrollment-jwt-check.js';
import { EnrollmentRefused } from '../../../src/agent/enrollment/enrollment-refused.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const dirs = [mkdtempSync(join(tmpdir(), 'postern-ca-')), mkdtempSync(join(tmpdir(), 'postern-ca-'))];
let ca: ControllerCa;
let otherCa: ControllerCa;

beforeAll(async () => {
  ca = await loadOrCreateControllerCa(dirs[0]!, false);
  otherCa = await loadOrCreateControllerCa(dirs[1]!, false);
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const claims = (overrides: Partial<EnrollmentClaims> = {}): EnrollmentClaims => ({
  iss: 'https://controller.example:1280',
  sub: 'identity-1',
  jti: '0b6f3c1e-8f0a-4c55-9a5e-0c1f2d3e4a5b',
  em: 'ott',
  iat: NOW.getTime() / 1000 - 60,
  exp: NOW.getTime() / 1000 + 3600,
  tlsCertSha256: 'ab'.repeat(32),
  ...overrides,
});

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function refusal(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(EnrollmentRefused);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('readEnrollmentJwt', () => {
  it('reads a genuine token and its claims, ignoring surrounding whitespace', () => {
    const jwt = signEnrollmentJwt(ca, claims());
    const token = readEnrollmentJwt(`\n${jwt}\n`, NOW);
    expect(token.jwt).toBe(jwt);
    expect(token.claims).toMatchObject({ em: 'ott', sub: 'identity-1' });
    expect(token.header).toEqual({ alg: 'ES256', typ: 'JWT', kid: ca.fingerprint });
  });

  it('refuses an expired token, saying when it expired', () => {
    const jwt = signEnrollmentJwt(ca, claims({ exp: NOW.getTime() / 1000 - 1 }));
    expect(refusal(() => readEnrollmentJwt(jwt, NOW))).toBe(
      'this enrollment token expired at 2026-06-01T11:59:59.000Z; ask your administrator for a new one',
    );
  });

  it('refuses what is not an enrollment JWT', () => {
    expect(refusal(() => readEnrollmentJwt('hello', NOW))).toMatch(
      /^this is not an enrollment token \(not a JWT/,
    );
    for (const garbage of ['a.b.c', 'eyJ.e30.x', '%%.%%.%%'])
      expect(refusal(() => readEnrollmentJwt(garbage, NOW))).toBe(
        'this is not an enrollment token (its parts are not base64url JSON)',
      );
    const noMethod = `${part({ alg: 'ES256' })}.${part({ ...claims(), em: 'erott' })}.sig`;
    expect(refusal(() => readEnrollmentJwt(noMethod, NOW))).toMatch(/it needs iss, sub, jti, exp and em/);
    const hmac = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims())}.sig`;
    expect(refusal(() => readEnrollmentJwt(hmac, NOW))).toBe(
      'this is not an enrollment token (it is signed with HS256, not ES256, ES384, ES512, RS256)',
    );
    const none = `${part({ alg: 'none' })}.${part(claims())}.`;
    expect(refusal(() => readEnrollmentJwt(none, NOW))).toMatch(/signed with none/);
  });
});

describe('checkEnrollmentSignature', () => {
  const check = (jwt: string, jwks: unknown) => () =>
    checkEnrollmentSignature(readEnrollmentJwt(jwt, NOW), jwks);

  it('accepts a token signed by the key the controller publishes', () => {
    expect(check(signEnrollmentJwt(ca, claims()), enrollmentJwks(ca))).not.toThrow();
  });

  it('refuses a token whose claims were altered after signing', () => {
    const [header, , signature] = signEnrollmentJwt(ca, claims()).split('.');
    for (const altered of [
      claims({ iss: 'https://attacker.example:1280' }),
      claims({ tlsCertSha256: 'cd'.repeat(32) }),
      claims({ exp: NOW.getTime() / 1000 + 10 * 365 * 86400 }),
    ])
      expect(refusal(check(`${header}.${part(altered)}.${signature}`, enrollmentJwks(ca)))).toMatch(
        /signature does not verify with the key of .*; it was altered or not issued there$/,
      );
  });

  it('refuses a broken signature', () => {
    const jwt = signEnrollmentJwt(ca, claims());
    const signature = Buffer.from(jwt.split('.')[2]!, 'base64url');
    signature[10]! ^= 0x01;
    const broken = `${jwt.split('.').slice(0, 2).join('.')}.${signature.toString('base64url')}`;
    expect(refusal(check(broken, enrollmentJwks(ca)))).toMatch(/signature does not verify/);
  });

  it("refuses a token signed by another controller's key, by kid or by signature", () => {
    const foreign = signEnrollmentJwt(otherCa, claims());
    expect(refusal(check(foreign, enrollmentJwks(ca)))).toMatch(
      /does not publish the key this token was signed with; it was not issued there$/,
    );
    // The same kid on a different key: the signature decides.
    const relabelled = { keys: [{ ...enrollmentJwks(ca).keys[0]!, kid: otherCa.fingerprint }] };
    expect(refusal(check(foreign, relabelled))).toMatch(/signature does not verify/);
  });

  it('refuses when the controller publishes no usable key set', () => {
    const jwt = signEnrollmentJwt(ca, claims());
    for (const jwks of [undefined, {}, { keys: [] }, { keys: 'x' }, '<html>'])
      expect(refusal(check(jwt, jwks))).toMatch(/does not publish the key/);
    const rsa = { keys: [{ kty: 'RSA', n: 'AQAB', e: 'AQAB', kid: ca.fingerprint }] };
    expect(refusal(check(jwt, rsa))).toMatch(/is not a key this agent can read|does not sign with/);
    const secret = { keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: ca.fingerprint }] };
    expect(refusal(check(jwt, secret))).toMatch(/is not a key this agent can read|does not sign with/);
  });
});

/** A signer as a controller's TLS identity may be: the key with a self-signed certificate for it. */
async function tlsSigner(keys: { privateKey: KeyObject; publicKey: KeyObject }, algorithm: object) {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const pair = {
    privateKey: await webcrypto.subtle.importKey(
      'pkcs8',
      keys.privateKey.export({ format: 'der', type: 'pkcs8' }),
      algorithm as never,
      true,
      ['sign'],
    ),
    publicKey: await webcrypto.subtle.importKey(
      'spki',
      keys.publicKey.export({ format: 'der', type: 'spki' }),
      algorithm as never,
      true,
      ['verify'],
    ),
  };
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=controller.example',
    keys: pair as CryptoKeyPair,
    signingAlgorithm: algorithm as never,
  });
  const parsed = new X509Certificate(cert.toString('pem'));
  return { privateKey: keys.privateKey, cert: parsed, fingerprint: parsed.fingerprint256 } as JwtSigner;
}

describe('tokens signed with a TLS key, as OpenZiti clients check them', () => {
  it('RS256 for an RSA key and ES384 for a P-384 key; the header cannot pick another algorithm', async () => {
    const rsa = await tlsSigner(generateKeyPairSync('rsa', { modulusLength: 2048 }), {
      name: 'RSASSA-PKCS1-v1_5',
      hash: 'SHA-256',
    });
    const p384 = await tlsSigner(generateKeyPairSync('ec', { namedCurve: 'P-384' }), {
      name: 'ECDSA',
      namedCurve: 'P-384',
      hash: 'SHA-384',
    });
    for (const [signer, alg] of [
      [rsa, 'RS256'],
      [p384, 'ES384'],
    ] as const) {
      const jwt = signEnrollmentJwt(signer, claims());
      const token = readEnrollmentJwt(jwt, NOW);
      expect(token.header.alg).toBe(alg);
      expect(enrollmentJwks(signer).keys[0]).toMatchObject({ alg, kid: signer.fingerprint });
      expect(() => checkEnrollmentSignature(token, enrollmentJwks(signer))).not.toThrow();
      // The same signature presented under another algorithm is refused before it is checked.
      const [, payload, signature] = jwt.split('.');
      const relabelled = `${part({ alg: alg === 'RS256' ? 'ES256' : 'ES512', typ: 'JWT', kid: signer.fingerprint })}.${payload}.${signature}`;
      expect(
        refusal(() => checkEnrollmentSignature(readEnrollmentJwt(relabelled, NOW), enrollmentJwks(signer))),
      ).toMatch(/does not sign with/);
    }
  });
});
