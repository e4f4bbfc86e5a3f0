/**
 * Clients that try to exhaust the controller rather than fool it: deeply nested JSON inside the body limit
 * (once a stack overflow in validation, a 500, or a stalled event loop), and slow clients that send a
 * request a byte at a time (slowloris) to hold connections and keep a shutdown from finishing.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

const REQUEST_TIMEOUT_MS = 1000;
let tc: TestController;
let admin: Api;

beforeAll(async () => {
  tc = await startTestController({ requestTimeoutMs: REQUEST_TIMEOUT_MS });
  admin = new Api(tc.url);
  await admin.login('admin', ADMIN_PASSWORD);
});

afterAll(async () => {
  await tc?.dispose();
});

const nested = (depth: number, leaf = '1') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

describe('deeply nested JSON', () => {
  it.each([
    ['tags 40 levels deep', `{"name":"deep-svc","tags":${nested(40)}}`],
    ['tags 10,000 levels deep', `{"name":"deep-svc","tags":${nested(10_000)}}`],
    ['an array 400,000 levels deep', '['.repeat(400_000) + ']'.repeat(400_000)],
  ])('refuses %s with 400 naming the body, and stores nothing', async (_name, body) => {
    const res = await admin.post(`${MGMT}/services`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('COULD_NOT_PARSE_BODY');
    expect(res.body.error.cause.field).toBe('body');
    expect(res.body.error.message).toContain('nests deeper than 32 levels');
    const listed = await admin.get(`${MGMT}/services?filter=${encodeURIComponent('name = "deep-svc"')}`);
    expect(listed.body.data).toEqual([]);
  });

  it('still parses brackets inside strings and ordinary nesting', async () => {
    const res = await admin.post(`${MGMT}/services`, {
      name: 'brackets-in-strings',
      tags: { note: '[[[[{{{{'.repeat(100), nested: { a: { b: { c: 'ok' } } } },
    });
    expect(res.status).toBe(201);
  });
});

/** Opens a connection and sends the start of a request, then nothing more. */
function slowClient(partial: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const { port } = new URL(tc.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(partial);
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const closed = new Promise<string>((done) => socket.once('close', () => done(answer)));
      resolve({ socket, closed });
    });
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

describe('slow clients', () => {
  it('closes a connection whose headers never finish, and one whose body never arrives', async () => {
    const headers = await slowClient('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a');
    const body = await slowClient(
      `POST ${MGMT}/services HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `zt-session: ${admin.token}\r\nContent-Length: 1000\r\n\r\n{"name":`,
    );
    // Each is dropped by the server (a 408 at most) soon after the request timeout, not left open.
    const late = new Promise<string>((resolve) =>
      setTimeout(() => resolve('still open'), REQUEST_TIMEOUT_MS * 5).unref(),
    );
    expect(await Promise.race([headers.closed, late])).toMatch(/^(HTTP\/1\.1 408|)$|^HTTP\/1\.1 408/);
    expect(await Promise.race([body.closed, late])).toMatch(/^(HTTP\/1\.1 408|)$|^HTTP\/1\.1 408/);
    expect((await admin.get('/version')).status).toBe(200);
  });

  it('answers headers too large in the OpenZiti envelope and closes the connection', async () => {
    const client = await slowClient(
      `GET /version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const answer = await client.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body.error.code).toBe('HEADERS_TOO_LARGE');
    expect(body.meta).toBeDefined();
  });

  it('shuts down promptly with slow clients connected', async () => {
    const own = await startTestController();
    const { port } = new URL(own.url);
    const sockets = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(Number(port), '127.0.0.1', () => {
              s.write(`POST ${MGMT}/services HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{`);
              resolve(s);
            });
            s.on('error', () => undefined);
          }),
      ),
    );
    const closed = own.dispose().then(() => 'closed');
    const stalled = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 10_000).unref());
    expect(await Promise.race([closed, stalled])).toBe('closed');
    for (const s of sockets) s.destroy();
  });
});

describe('a forged Host header', () => {
  it('is not reflected into the API addresses /version hands out', async () => {
    // node:http sends the Host header as given (fetch does not).
    const text = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(`${tc.url}/version`, { headers: { host: 'evil.example:666' } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
    const res = { body: JSON.parse(text) as { data: { apiVersions: unknown } } };
    const urls = Object.values(
      res.body.data.apiVersions as Record<string, { v1: { apiBaseUrls: string[] } }>,
    ).flatMap((v) => v.v1.apiBaseUrls);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(`${tc.url}/edge/`)).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain('evil.example');
  });
});
