/**
 * An http:// address for a controller that serves HTTPS: the TLS server hangs up on the plain request, and
 * the user is told to try https:// rather than left with a bare ECONNRESET. The error comes from a real TLS
 * server on loopback, as the client's HTTP layer sees it.
 */
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { transportError } from '../../../src/controller-client/controller-error.js';
import { createSelfSignedCertificate } from '../../../src/common/self-signed-certificate.js';

let server: ReturnType<typeof createServer>;
let port: number;

beforeAll(async () => {
  const { certPem, keyPem } = await createSelfSignedCertificate('test', []);
  server = createServer({ cert: certPem, key: keyPem }, (_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function plainRequestError(url: string): Promise<unknown> {
  return new Promise((resolve) => {
    const req = httpRequest(url, (res) => {
      res.resume();
      resolve(new Error(`answered ${res.statusCode}`));
    });
    req.on('error', resolve);
    req.end();
  });
}

it('suggests https:// when an http:// address reaches a TLS server', async () => {
  const url = `http://127.0.0.1:${port}`;
  const error = await plainRequestError(`${url}/version`);
  expect((error as { code?: string }).code).toBe('ECONNRESET');
  expect(transportError(error, url).message).toBe(
    `cannot reach the controller at ${url} (ECONNRESET); if the controller serves HTTPS, use https://127.0.0.1:${port}`,
  );
});

it('adds nothing for a refused connection', () => {
  const error = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  expect(transportError(error, 'http://127.0.0.1:9').message).toBe(
    'cannot reach the controller at http://127.0.0.1:9 (ECONNREFUSED)',
  );
});
