/**
 * The router's parsers fuzzed on real parts (issue 22, item 4): a controller with its embedded router over a
 * real TLS/HTTP/2 listener and a real WebSocket link, a real service, and a live tunnel through it. Random
 * and truncated CONNECT headers lose only their own stream, random bytes only their own connection, random
 * and truncated link frames (both ways) only themselves: the link never goes down, the live tunnel keeps
 * carrying bytes, and a revocation still cuts it within a second.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { connect as tlsConnect } from 'node:tls';
import type { ClientHttp2Session } from 'node:http2';
import fc from 'fast-check';
import type WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT } from '../helpers/api.js';
import {
  closedWithin,
  closeServer,
  create,
  dialSession,
  echoServer,
  openStream,
  publishService,
  roundTrip,
  routerSession,
  sha256,
  signedInUser,
  startWorld,
  stopWorld,
  type DialSession,
  type User,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';

const CUT_WITHIN_MS = 1000;
const printable = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

describe('fuzzed input to the router and its link', () => {
  let world: World;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let serviceId: string;
  let user: User;
  let session: DialSession;
  let h2: ClientHttp2Session;
  let downs = 0;
  const connections: ClientHttp2Session[] = [];

  beforeAll(async () => {
    world = await startWorld();
    world.bundle.router!.link.on('down', () => downs++);
    echo = await echoServer();
    const attribute = unique('fuzz-apps');
    const staff = unique('fuzz-staff');
    ({ serviceId } = await publishService(world.admin, echo.port, { attribute }));
    await create(world.admin, 'service-policies', {
      name: unique('fuzz-dial'),
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${staff}`],
      serviceRoles: [`#${attribute}`],
    });
    user = await signedInUser(world, [staff]);
    session = await dialSession(user, serviceId);
    h2 = await routerSession(session.edgeRouters[0]!.urls.tls!, session.edgeRouters[0]!.fingerprint);
  });

  afterAll(async () => {
    h2?.destroy();
    for (const c of connections) c.destroy();
    await closeServer(echo.server, echo.sockets);
    await stopWorld(world);
  });

  const liveTunnel = async () => {
    const opened = await openStream(h2, session.token, serviceId);
    expect(opened.status).toBe(200);
    return opened.stream;
  };
  const stillCarries = async (stream: Awaited<ReturnType<typeof liveTunnel>>) => {
    const data = randomBytes(4096);
    expect(await roundTrip(stream, data)).toBe(sha256(data));
    expect(downs).toBe(0);
    expect(world.bundle.router!.link.isUp).toBe(true);
  };

  it('random and truncated CONNECT headers: each refused on its own stream, nothing else affected', async () => {
    const live = await liveTunnel();
    const token = session.token;
    const tokens = fc.oneof(
      printable(200),
      fc.nat({ max: token.length - 1 }).map((n) => token.slice(0, n)),
      fc
        .nat({ max: token.length - 1 })
        .map((n) => `${token.slice(0, n)}${token[n] === 'a' ? 'b' : 'a'}${token.slice(n + 1)}`),
      fc.constant(randomUUID()),
      fc.nat({ max: 60_000 }).map((n) => '\\'.repeat(n)),
      fc.constant(token),
    );
    const requests = fc.sample(
      fc.record({
        method: fc.constantFrom('CONNECT', 'CONNECT', 'CONNECT', 'GET', 'POST'),
        token: fc.option(tokens, { nil: undefined }),
        service: fc.option(fc.oneof(printable(100), fc.constant(serviceId)), { nil: undefined }),
      }),
      300,
    );
    const other = await routerSession(session.edgeRouters[0]!.urls.tls!, session.edgeRouters[0]!.fingerprint);
    connections.push(other);
    for (let i = 0; i < requests.length; i += 20) {
      await Promise.all(
        requests.slice(i, i + 20).map(async (r) => {
          const headers: Record<string, string> = {
            ':method': r.method,
            ':authority': 'service.postern:443',
          };
          if (r.method !== 'CONNECT') headers[':path'] = '/';
          if (r.token !== undefined) headers['postern-session-token'] = r.token;
          if (r.service !== undefined) headers['postern-service-id'] = r.service;
          const stream = other.request(headers, { endStream: false });
          stream.on('error', () => undefined);
          const status = await new Promise<number>((resolve) => {
            stream.once('response', (h) => resolve(Number(h[':status'])));
            stream.once('close', () => resolve(0));
          });
          stream.close();
          // Only the real token for its own service is let through; everything else is refused or reset.
          if (status === 200) expect([r.method, r.token, r.service]).toEqual(['CONNECT', token, serviceId]);
          else if (status !== 0) expect(status).toBeGreaterThanOrEqual(400);
        }),
      );
    }
    await stillCarries(live);
    live.close();
  });

  it('random and truncated bytes on a TLS connection lose that connection only', async () => {
    const live = await liveTunnel();
    const { hostname, port } = new URL(session.edgeRouters[0]!.urls.tls!.replace(/^tls:/, 'https:'));
    const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    const inputs = fc.sample(
      fc.oneof(
        fc.uint8Array({ maxLength: 4096 }).map((b) => Buffer.from(b)),
        fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.concat([preface, Buffer.from(b)])),
        fc.nat({ max: preface.length }).map((n) => preface.subarray(0, n)),
      ),
      40,
    );
    await Promise.all(
      inputs.map(
        (bytes) =>
          new Promise<void>((resolve) => {
            const socket = tlsConnect({
              host: hostname,
              port: Number(port),
              ALPNProtocols: ['h2'],
              rejectUnauthorized: false,
            });
            socket.on('error', () => undefined);
            socket.once('close', () => resolve());
            socket.once('secureConnect', () => {
              socket.write(bytes);
              // A truncated but valid start is a slow client, not an error: it is left waiting, then hung up.
              setTimeout(() => socket.destroy(), 2000).unref();
            });
          }),
      ),
    );
    await stillCarries(live);
    live.close();
  });

  it('random and truncated link frames, both ways: ignored, the link stays up, a revocation cuts within 1 s', async () => {
    const live = await liveTunnel();
    const link = world.bundle.router!.link as unknown as { socket: WebSocket };
    const socket = link.socket;
    const routerFrames = [
      { t: 'hello', hostname: 'router.example', urls: { tls: 'tls://x:1' }, version: '1' },
      { t: 'lookup', id: 1, token: randomUUID() },
    ];
    const controllerFrames = [
      { t: 'snapshot', sessions: [], services: [] },
      { t: 'session.added', session: { id: 'x' } },
      { t: 'session.removed', sessionIds: ['x'] },
      { t: 'service', service: { serviceId: 'x', name: 'x', host: null } },
      { t: 'lookup.result', id: 1, session: null, service: null },
    ];
    const truncated = (frames: object[]) =>
      fc
        .tuple(fc.constantFrom(...frames.map((f) => JSON.stringify(f))), fc.nat())
        .map(([text, n]) => text.slice(0, n % text.length));
    // A field of the wrong kind (never a list or an object, which could make a valid frame).
    const mistyped = (frames: object[]) =>
      fc
        .tuple(fc.constantFrom(...frames), fc.nat(), fc.oneof(fc.string(), fc.double(), fc.boolean()))
        .map(([frame, n, value]) => {
          const keys = Object.keys(frame).filter((k) => k !== 't' && k !== 'id');
          return JSON.stringify({ ...frame, [keys[n % keys.length]!]: value });
        });
    const noise = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json());
    const toController = [
      ...fc.sample(fc.oneof(noise, truncated(routerFrames), mistyped(routerFrames)), 400),
      JSON.stringify({ t: 'lookup', id: 9, token: '\\'.repeat(40_000) }),
      'x'.repeat(200_000),
    ];
    const toRouter = fc.sample(fc.oneof(noise, truncated(controllerFrames), mistyped(controllerFrames)), 400);
    for (const text of toController) socket.send(text);
    // The router's own reader, as a frame from the controller arrives.
    for (const text of toRouter) socket.emit('message', Buffer.from(text), false);
    // The controller has read all of it once it answers a ping sent after it.
    await new Promise<void>((resolve) =>
      socket.ping(undefined, undefined, () => socket.once('pong', () => resolve())),
    );
    await stillCarries(live);

    const cut = closedWithin(live);
    expect((await user.api.delete(`${CLIENT}/current-api-session`)).status).toBe(200);
    expect(await cut).toBeLessThan(CUT_WITHIN_MS);
    expect(downs).toBe(0);
  });
});
