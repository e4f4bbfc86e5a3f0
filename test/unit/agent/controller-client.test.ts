import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ControllerClient } from '../../../src/controller-client/controller-client.js';
import { ControllerError } from '../../../src/controller-client/controller-error.js';
import { parseRetryAfter, retryDelay, DEFAULT_RETRY } from '../../../src/controller-client/retry-policy.js';
import type { Clock } from '../../../src/common/clock.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** A loopback "controller" answering with whatever each test scripts, one handler per request. */
async function scriptedServer(handlers: Handler[]) {
  const seen: { method: string; url: string; token?: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        url: req.url!,
        token: req.headers['zt-session'] as string | undefined,
        body,
      });
      const handler = handlers[Math.min(seen.length - 1, handlers.length - 1)]!;
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const ok = (data: unknown) => json(200, { data, meta: {} });
const error = (
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) => json(status, { error: { code, message: `${code} happened`, ...extra }, meta: {} }, headers);

/** A clock whose sleeps return at once but are recorded. */
function recordingClock(): Clock & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    now: () => Date.now(),
    setTimeout(fn, ms) {
      waits.push(ms);
      setImmediate(fn);
      return { cancel() {} };
    },
  };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.map((c) => c()));
  cleanup = [];
});

async function clientFor(handlers: Handler[], retry = {}) {
  const server = await scriptedServer(handlers);
  const clock = recordingClock();
  const client = new ControllerClient({ baseUrl: server.url, clock, random: () => 0.5, retry });
  cleanup.push(async () => {
    client.close();
    await server.close();
  });
  return { server, clock, client };
}

describe('ControllerClient', () => {
  it('unwraps the envelope and sends the session token', async () => {
    const { server, client } = await clientFor([ok({ hello: 'world' })]);
    client.setSessionToken('tok-1');
    await expect(client.request('GET', '/version')).resolves.toEqual({ hello: 'world' });
    expect(server.seen[0]).toMatchObject({ url: '/edge/client/v1/version', token: 'tok-1' });
  });

  it('maps an error envelope to a ControllerError with status, code and field, without retrying a 4xx', async () => {
    const { server, client } = await clientFor([
      error(400, 'COULD_NOT_VALIDATE', { cause: { field: 'serviceId', reason: 'bad' } }),
    ]);
    const failure = await client.request('POST', '/sessions', { body: {} }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ControllerError);
    expect(failure).toMatchObject({ status: 400, code: 'COULD_NOT_VALIDATE', field: 'serviceId' });
    expect(server.seen).toHaveLength(1);
  });

  it('retries 5xx with jittered exponential back-off and then succeeds', async () => {
    const { server, clock, client } = await clientFor([
      error(503, 'TIMEOUT'),
      error(502, 'UNHANDLED'),
      ok('fine'),
    ]);
    await expect(client.request('GET', '/services')).resolves.toBe('fine');
    expect(server.seen).toHaveLength(3);
    // base 250 ms doubling, half fixed and half random (random = 0.5): 188, 375
    expect(clock.waits).toEqual([188, 375]);
  });

  it('waits at least what Retry-After says on 429', async () => {
    const { clock, client } = await clientFor([
      error(429, 'RATE_LIMITED', {}, { 'retry-after': '2' }),
      ok('done'),
    ]);
    await expect(client.request('GET', '/services')).resolves.toBe('done');
    expect(clock.waits).toHaveLength(1);
    expect(clock.waits[0]).toBeGreaterThanOrEqual(2_000);
    expect(clock.waits[0]).toBeLessThan(2_000 + DEFAULT_RETRY.baseDelayMs);
  });

  it('gives up at once when Retry-After is longer than it will wait, keeping the delay on the error', async () => {
    const { server, client } = await clientFor([error(429, 'RATE_LIMITED', {}, { 'retry-after': '600' })]);
    const failure = await client.request('POST', '/authenticate', { body: {} }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfterMs: 600_000 });
    expect(server.seen).toHaveLength(1);
  });

  it('stops after the bounded number of retries', async () => {
    const { server, clock, client } = await clientFor([error(500, 'UNHANDLED')], { maxRetries: 3 });
    await expect(client.request('GET', '/services')).rejects.toMatchObject({ status: 500 });
    expect(server.seen).toHaveLength(4);
    expect(clock.waits).toHaveLength(3);
  });

  it('does not retry a request marked as carrying a one-time code', async () => {
    const { server, client } = await clientFor([error(503, 'TIMEOUT'), ok({})]);
    await expect(
      client.request('POST', '/authenticate/mfa', { body: { code: '1' }, retry: false }),
    ).rejects.toMatchObject({ status: 503 });
    expect(server.seen).toHaveLength(1);
  });

  it('reports an unreachable controller as UNREACHABLE after retrying, and flips reachability', async () => {
    const server = await scriptedServer([ok('x')]);
    await server.close();
    const clock = recordingClock();
    const client = new ControllerClient({ baseUrl: server.url, clock, retry: { maxRetries: 2 } });
    const flips: boolean[] = [];
    client.reachability.on((r) => flips.push(r));
    const failure = await client.request('GET', '/version').catch((e: unknown) => e);
    client.close();
    expect(failure).toMatchObject({ status: 0, code: 'UNREACHABLE' });
    expect((failure as Error).message).toContain(server.url);
    expect(clock.waits).toHaveLength(2);
    expect(flips).toEqual([false]);
  });

  it('signs in again once after a 401 and repeats the request with the new token', async () => {
    const { server, client } = await clientFor([error(401, 'UNAUTHORIZED'), ok('second try')]);
    client.setSessionToken('expired');
    let logins = 0;
    client.setReauthenticator(async () => {
      logins++;
      client.setSessionToken('fresh');
      return true;
    });
    await expect(client.request('GET', '/services')).resolves.toBe('second try');
    expect(logins).toBe(1);
    expect(server.seen.map((s) => s.token)).toEqual(['expired', 'fresh']);
  });

  it('does not loop when the new session is refused too', async () => {
    const { server, client } = await clientFor([error(401, 'UNAUTHORIZED')]);
    client.setSessionToken('a');
    let logins = 0;
    client.setReauthenticator(async () => {
      client.setSessionToken(`t${++logins}`);
      return true;
    });
    await expect(client.request('GET', '/services')).rejects.toMatchObject({ status: 401 });
    expect(logins).toBe(1);
    expect(server.seen).toHaveLength(2);
  });
});

describe('retry policy', () => {
  const err = (status: number, retryAfterMs?: number) =>
    new ControllerError({ status, code: 'X', message: 'x', retryAfterMs });

  it('retries only network failures, 5xx and 429', () => {
    expect(retryDelay(0, err(400), DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(0, err(404), DEFAULT_RETRY)).toBeUndefined();
    expect(retryDelay(0, err(500), DEFAULT_RETRY)).toBeDefined();
    expect(retryDelay(0, err(429), DEFAULT_RETRY)).toBeDefined();
    expect(
      retryDelay(0, new ControllerError({ status: 0, code: 'UNREACHABLE', message: '' }), DEFAULT_RETRY),
    ).toBeDefined();
    expect(
      retryDelay(0, new ControllerError({ status: 0, code: 'TLS_ERROR', message: '' }), DEFAULT_RETRY),
    ).toBeUndefined();
  });

  it('caps the exponential step and keeps the jitter within it', () => {
    for (const random of [0, 0.3, 0.999]) {
      const d = retryDelay(10, err(503), { ...DEFAULT_RETRY, maxRetries: 20 }, () => random)!;
      expect(d).toBeGreaterThanOrEqual(DEFAULT_RETRY.maxDelayMs / 2);
      expect(d).toBeLessThanOrEqual(DEFAULT_RETRY.maxDelayMs);
    }
    expect(retryDelay(DEFAULT_RETRY.maxRetries, err(503), DEFAULT_RETRY)).toBeUndefined();
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
