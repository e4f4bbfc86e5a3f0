/**
 * The device's key and CSR: the request carries the public key (and proof of the private one) and nothing
 * else of the key; the controller's own issuing code accepts it, and the agent's checks tell its
 * certificate from one for another key or from another CA.
 */
import { X509Certificate, createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadOrCreateControllerCa,
  type ControllerCa,
} from '../../../controller/platform/keys/controller-ca.js';
import { issueClientCertificate } from '../../../controller/enrollment/client-certificates.js';
import {
  certificateMatchesKey,
  createDeviceKeyRequest,
  issuedBy,
} from '../../../src/agent/enrollment/device-key.js';

const dirs = [mkdtempSync(join(tmpdir(), 'postern-ca-')), mkdtempSync(join(tmpdir(), 'postern-ca-'))];
let ca: ControllerCa;
let otherCa: ControllerCa;

beforeAll(async () => {
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  ca = await loadOrCreateControllerCa(dirs[0]!, false);
  otherCa = await loadOrCreateControllerCa(dirs[1]!, false);
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('createDeviceKeyRequest', () => {
  it('makes an EC P-256 key and a CSR that verifies and carries only its public half', async () => {
    const { privateKeyPem, csrPem } = await createDeviceKeyRequest('identity-1');
    const key = createPrivateKey(privateKeyPem);
    expect(key.asymmetricKeyType).toBe('ec');
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');

    const csr = new x509.Pkcs10CertificateRequest(csrPem);
    expect(await csr.verify()).toBe(true);
    expect(csr.subject).toBe('CN=identity-1');
    const spki = Buffer.from(csr.publicKey.rawData);
    expect(spki.equals(createPublicKey(key).export({ type: 'spki', format: 'der' }))).toBe(true);

    // The private scalar appears nowhere in what is sent.
    const d = Buffer.from((key.export({ format: 'jwk' }) as { d: string }).d, 'base64url');
    expect(d).toHaveLength(32);
    expect(Buffer.from(csr.rawData).includes(d)).toBe(false);
    expect(csrPem).not.toMatch(/PRIVATE/);
  });

  it('makes a new key every time', async () => {
    const [a, b] = await Promise.all([createDeviceKeyRequest('x'), createDeviceKeyRequest('x')]);
    expect(a.privateKeyPem).not.toBe(b.privateKeyPem);
  });

  it('escapes characters a distinguished name treats specially', async () => {
    const { csrPem } = await createDeviceKeyRequest('laptop, O=Evil');
    expect(new x509.Pkcs10CertificateRequest(csrPem).subjectName.getField('O')).toEqual([]);
  });
});

describe('checking the certificate the controller answers', () => {
  it("accepts the controller's certificate for this key and refuses one for another key or from another CA", async () => {
    const mine = await createDeviceKeyRequest('identity-1');
    const theirs = await createDeviceKeyRequest('identity-1');
    const issued = await issueClientCertificate(ca, mine.csrPem, 'identity-1', new Date());
    expect(new X509Certificate(issued.certPem).subject).toBe('CN=identity-1');

    expect(certificateMatchesKey(issued.certPem, mine.privateKeyPem)).toBe(true);
    expect(certificateMatchesKey(issued.certPem, theirs.privateKeyPem)).toBe(false);
    expect(certificateMatchesKey('not a certificate', mine.privateKeyPem)).toBe(false);

    expect(issuedBy(issued.certPem, ca.certPem)).toBe(true);
    expect(issuedBy(issued.certPem, otherCa.certPem)).toBe(false);
    expect(issuedBy(issued.certPem, 'garbage')).toBe(false);
  });
});
