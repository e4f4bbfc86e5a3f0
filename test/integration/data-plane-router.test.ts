/**
 * The edge router on real parts: a controller with its embedded router, real TCP services, and streams
 * opened with real session tokens. Bytes flow only for a valid Dial session of the named service, only to
 * the service's host.v1 target, and a revocation cuts the stream.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientHttp2Session } from 'node:http2';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { shiftControllerClock } from '../helpers/agent-setup.js';
import { createSelfSignedCertificate } from '../../src/common/self-signed-certificate.js';
import { ROUTER_ENROLL_PATH } from '../../src/api/data-plane.js';
import {
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
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';

describe('edge router streams', () => {
  let world: World;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let other: Awaited<ReturnType<typeof echoServer>>;
  let service: { serviceId: string };
  let second: { serviceId: string };
  let h2: ClientHttp2Session;
  let user: Awaited<ReturnType<typeof signedInUser>>;
  let token: string;

  beforeAll(async () => {
    world = await startWorld();
    echo = await echoServer();
    other = await echoServer();
    const attribute = unique('apps');
    service = await publishService(world.admin, echo.port, { attribute });
    second = await publishService(world.admin, other.port, { attribute });
    const staff = unique('staff');
    await create(world.admin, 'service-policies', {
      name: unique('dial'),
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${staff}`],
      serviceRoles: [`#${attribute}`],
    });
    await create(world.admin, 'service-policies', {
      name: unique('bind'),
      type: 'Bind',
      semantic: 'AnyOf',
      identityRoles: [`#${staff}`],
      serviceRoles: [`#${attribute}`],
    });
    user = await signedInUser(world, [staff]);
    const session = await dialSession(user, service.serviceId);
    token = session.token;
    expect(session.edgeRouters).toHaveLength(1);
    expect(session.edgeRouters[0]!.fingerprint).toBe(world.bundle.router!.fingerprint);
    h2 = await routerSession(session.edgeRouters[0]!.urls.tls!, session.edgeRouters[0]!.fingerprint);
  });

  afterAll(async () => {
    h2?.destroy();
    await closeServer(echo.server, echo.sockets);
    await closeServer(other.server, other.sockets);
    await stopWorld(world);
  });

  it('carries bytes both ways for a valid Dial session', async () => {
    const opened = await openStream(h2, token, service.serviceId);
    expect(opened.status).toBe(200);
    const data = randomBytes(64 * 1024);
    expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
    opened.stream.close();
  });

  it('carries 100 MiB through one stream intact', async () => {
    const opened = await openStream(h2, token, service.serviceId);
    expect(opened.status).toBe(200);
    const chunk = randomBytes(1024 * 1024);
    const total = 100;
    const sent = createHash('sha256');
    for (let i = 0; i < total; i++) sent.update(chunk);
    const expected = sent.digest('hex');
    const received = new Promise<string>((resolve) => {
      const h = createHash('sha256');
      let n = 0;
      opened.stream.on('data', (c: Buffer) => {
        h.update(c);
        n += c.length;
        if (n >= total * chunk.length) resolve(h.digest('hex'));
      });
    });
    for (let i = 0; i < total; i++) {
      if (!opened.stream.write(chunk)) await new Promise((r) => opened.stream.once('drain', r));
    }
    expect(await received).toBe(expected);
    opened.stream.close();
  }, 120_000);

  it('carries 200 concurrent connections', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const opened = await openStream(h2, token, service.serviceId);
        const data = Buffer.from(`connection ${i} `.repeat(50));
        const digest = await roundTrip(opened.stream, data);
        opened.stream.close();
        return digest === sha256(data);
      }),
    );
    expect(results.filter(Boolean)).toHaveLength(200);
  });

  it('refuses a forged token', async () => {
    const opened = await openStream(h2, randomBytes(16).toString('hex'), service.serviceId);
    expect([opened.status, opened.error]).toEqual([401, 'INVALID_SESSION']);
  });

  it('refuses a token used for another service', async () => {
    const opened = await openStream(h2, token, second.serviceId);
    expect([opened.status, opened.error]).toEqual([403, 'WRONG_SERVICE']);
  });

  it('refuses a Bind session token for dialing', async () => {
    const bind = await dialSession(user, service.serviceId, 'Bind');
    const opened = await openStream(h2, bind.token, service.serviceId);
    expect([opened.status, opened.error]).toEqual([403, 'NOT_DIAL']);
  });

  it('refuses a token whose session was deleted', async () => {
    const other = await dialSession(user, second.serviceId);
    expect((await user.api.delete(`${CLIENT}/sessions/${other.id}`)).status).toBe(200);
    const opened = await openStream(h2, other.token, second.serviceId);
    expect([opened.status, opened.error]).toEqual([401, 'INVALID_SESSION']);
  });

  it('dials only the host.v1 target, whatever address the client names', async () => {
    const before = other.connections();
    const opened = await openStream(h2, token, service.serviceId, `127.0.0.1:${other.port}`);
    expect(opened.status).toBe(200);
    const data = randomBytes(1024);
    expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
    opened.stream.close();
    expect(other.connections()).toBe(before);
  });

  it('refuses a service without host.v1 and a target that does not answer', async () => {
    const attribute = unique('nohost');
    const bare = await publishService(world.admin, 1, { attribute, host: false });
    const closed = await echoServer();
    const gone = await publishService(world.admin, closed.port, { attribute });
    await closeServer(closed.server);
    const staff = unique('staff');
    await create(world.admin, 'service-policies', {
      name: unique('dial'),
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${staff}`],
      serviceRoles: [`#${attribute}`],
    });
    const someone = await signedInUser(world, [staff]);
    const noHost = await dialSession(someone, bare.serviceId);
    expect((await openStream(h2, noHost.token, bare.serviceId)).error).toBe('NO_HOST_CONFIG');
    const dead = await dialSession(someone, gone.serviceId);
    const refused = await openStream(h2, dead.token, gone.serviceId);
    expect([refused.status, refused.error]).toEqual([502, 'TARGET_UNREACHABLE']);
  });

  it('answers non-CONNECT requests with 405 and never proxies them', async () => {
    const stream = h2.request({ ':method': 'GET', ':path': '/' });
    const status = await new Promise<number>((resolve) =>
      stream.once('response', (h) => resolve(Number(h[':status']))),
    );
    expect(status).toBe(405);
    stream.close();
  });

  it('lists the router for the identity', async () => {
    const res = await user.api.get(`${CLIENT}/current-identity/edge-routers`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { fingerprint: string }) => r.fingerprint)).toContain(
      world.bundle.router!.fingerprint,
    );
    const detail = await world.admin.get(`${MGMT}/edge-routers/${world.bundle.router!.edgeRouterId}`);
    expect(detail.body.data.isOnline).toBe(true);
  });

  it('refuses an enrollment token after it expires, and leaves the router unenrolled', async () => {
    const created = await world.admin.post(`${MGMT}/edge-routers`, { name: unique('late-router') });
    expect(created.status).toBe(201);
    const { enrollmentToken, id } = created.body.data as { enrollmentToken: string; id: string };
    const expiresAt = Date.parse(created.body.data.enrollmentExpiresAt as string);
    const restore = world.bundle.controller.ctx.clock;
    shiftControllerClock(world.bundle.controller.ctx, expiresAt - Date.now() + 1000);
    try {
      const { certPem } = await createSelfSignedCertificate('postern-router', ['127.0.0.1']);
      const res = await new Api(world.url).post(`${CLIENT}${ROUTER_ENROLL_PATH}`, {
        token: enrollmentToken,
        certPem,
      });
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.body.error)).toContain('expired');
    } finally {
      world.bundle.controller.ctx.clock = restore;
    }
    expect((await world.admin.get(`${MGMT}/edge-routers/${id}`)).body.data.isVerified).toBe(false);
  });
});
