/**
 * The client's CA bundle and pinned-fingerprint options against a loopback HTTPS server whose certificate
 * comes from a throw-away private CA (made with openssl; skipped where openssl is missing).
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerClient } from '../../../src/controller-client/controller-client.js';
import { hasOpenssl, issueServerCertificate } from '../../helpers/test-ca.js';

const dir = mkdtempSync(join(tmpdir(), 'postern-tls-'));
let server: https.Server | undefined;
let url = '';
let ca = '';
let fingerprint = '';
let requestsServed = 0;

beforeAll(async () => {
  if (!hasOpenssl()) return;
  issueServerCertificate(dir, ['127.0.0.1']);
  ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
  fingerprint = new X509Certificate(readFileSync(join(dir, 'server.pem'))).fingerprint256;
  server = https.createServer(
    { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) },
    (_req, res) => {
      requestsServed++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { version: 'tls' }, meta: {} }));
    },
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(hasOpenssl())('ControllerClient TLS', () => {
  it('trusts a controller certificate issued by the given CA bundle', async () => {
    const client = new ControllerClient({ baseUrl: url, trust: { ca } });
    await expect(client.request('GET', '/version')).resolves.toEqual({ version: 'tls' });
    client.close();
  });

  it('refuses an untrusted certificate at once, saying what to do', async () => {
    const client = new ControllerClient({ baseUrl: url });
    const failure = await client.request('GET', '/version').catch((e: unknown) => e);
    client.close();
    expect(failure).toMatchObject({ status: 0, code: 'TLS_ERROR' });
    expect((failure as Error).message).toContain("pass the controller's CA bundle");
  });

  it('trusts a pinned certificate without any CA, the fingerprint in any case and with or without colons', async () => {
    for (const pin of [fingerprint, fingerprint.replace(/:/g, '').toLowerCase()]) {
      const client = new ControllerClient({ baseUrl: url, trust: { fingerprint: pin } });
      await expect(client.request('GET', '/version')).resolves.toEqual({ version: 'tls' });
      client.close();
    }
  });

  it('refuses a certificate that does not match the pin before the request is sent', async () => {
    const served = requestsServed;
    const client = new ControllerClient({ baseUrl: url, trust: { fingerprint: 'ab'.repeat(32) } });
    const failure = await client
      .request('POST', '/authenticate', { body: { password: 'secret' }, retry: false })
      .catch((e: unknown) => e);
    client.close();
    expect(failure).toMatchObject({ status: 0, code: 'TLS_ERROR' });
    expect((failure as Error).message).toContain('not the pinned one');
    expect(requestsServed).toBe(served);
  });
});
