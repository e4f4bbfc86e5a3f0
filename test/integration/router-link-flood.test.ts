/**
 * Client input never reaches the router link unvalidated (issue 22, item 5). On real processes (a controller,
 * a standalone router, a service): unauthenticated CONNECTs carrying a malformed token (40,000 backslashes,
 * which JSON escapes to 80,000 bytes: past the link's frame limit, the controller used to end the link) or
 * streams of well-formed unknown tokens leave the link up, a connection past its lookup budget is refused
 * with TOO_MANY_LOOKUPS, and a revocation still reaches the router within a second while they run.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, spawnController, tempDir, type ControllerProcess } from '../helpers/controller.js';
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
  waitFor,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { spawnRouter, type RouterProcess } from '../helpers/router-process.js';
import { LOOKUP_BURST } from '../../edge-router/token-lookups.js';

/** What the data-plane revocation tests hold every revocation to. */
const CUT_WITHIN_MS = 1000;
const BACKSLASHES = '\\'.repeat(40_000);

describe('the router link under a flood of bad tokens', () => {
  const dir = tempDir('postern-link-flood-');
  let controller: ControllerProcess;
  let router: RouterProcess;
  let admin: Api;
  let world: World;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let serviceId: string;
  let staff: string;
  let routerId: string;
  const sessions: ClientHttp2Session[] = [];

  const linkedCount = () => controller.output().split('router linked').length - 1;

  beforeAll(async () => {
    controller = await spawnController(
      ['--data-dir', join(dir, 'controller'), '--port', '0', '--no-router'],
      { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD },
    );
    admin = new Api(controller.url);
    expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
    world = { admin, url: controller.url } as World;
    const made = await admin.post(`${MGMT}/edge-routers`, { name: unique('flood-router') });
    expect(made.status).toBe(201);
    routerId = made.body.data.id as string;
    router = await spawnRouter([
      ...['--controller', controller.url, '--enroll', made.body.data.enrollmentToken as string],
      ...['--data-dir', join(dir, 'router'), '--port', '0'],
    ]);
    await waitFor(() => router.output().includes('controller link up'), 20_000, 'router link up');
    echo = await echoServer();
    const attribute = unique('flood-apps');
    staff = unique('flood-staff');
    ({ serviceId } = await publishService(admin, echo.port, { attribute }));
    await create(admin, 'service-policies', {
      name: unique('flood-dial'),
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${staff}`],
      serviceRoles: [`#${attribute}`],
    });
  });

  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await router?.stop();
    await controller?.stop();
    if (echo) await closeServer(echo.server, echo.sockets);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A live, working tunnel of a fresh user through the standalone router. */
  const liveTunnel = async () => {
    const user = await signedInUser(world, [staff]);
    const session = await dialSession(user, serviceId);
    const offered = session.edgeRouters.find((r) => r.urls.tls === router.url)!;
    const h2 = await routerSession(offered.urls.tls!, offered.fingerprint);
    sessions.push(h2);
    const opened = await openStream(h2, session.token, serviceId);
    expect(opened.status).toBe(200);
    const data = Buffer.from(unique('bytes'));
    expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
    return { user, stream: opened.stream, h2, session };
  };

  /** Opens bad-token CONNECTs on new connections until `stop` resolves; counts what the router answered. */
  const flood = async (token: () => string, stop: Promise<unknown>) => {
    const answers = new Map<string, number>();
    let running = true;
    void stop.finally(() => (running = false));
    const offered = (await dialSession(await signedInUser(world, [staff]), serviceId)).edgeRouters.find(
      (r) => r.urls.tls === router.url,
    )!;
    const worker = async () => {
      while (running) {
        const h2 = await routerSession(offered.urls.tls!, offered.fingerprint);
        sessions.push(h2);
        for (let i = 0; i < 8 && running; i++) {
          const got = await openStream(h2, token(), serviceId).catch(() => ({ error: 'RESET' }));
          const key = got.error ?? 'NONE';
          answers.set(key, (answers.get(key) ?? 0) + 1);
        }
        h2.destroy();
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    return answers;
  };

  const routerOnline = async () => {
    const res = await admin.get(`${MGMT}/edge-routers/${routerId}`);
    return res.body.data.isOnline === true;
  };

  it('40,000 backslashes in a token: refused as unknown, the link stays up, a revocation arrives within 1 s', async () => {
    const linkedBefore = linkedCount();
    const t = await liveTunnel();
    let stopFlood!: () => void;
    const stop = new Promise<void>((resolve) => (stopFlood = resolve));
    const flooding = flood(() => BACKSLASHES, stop);
    // Let the flood run a while before the revocation, so it lands in the middle of it.
    await new Promise((r) => setTimeout(r, 3000));
    const cut = closedWithin(t.stream);
    expect((await t.user.api.delete(`${CLIENT}/current-api-session`)).status).toBe(200);
    expect(await cut).toBeLessThan(CUT_WITHIN_MS);
    await new Promise((r) => setTimeout(r, 1000));
    stopFlood();
    const answers = await flooding;

    expect(answers.get('INVALID_SESSION') ?? 0).toBeGreaterThan(20);
    expect([...answers.keys()]).toEqual(['INVALID_SESSION']);
    expect(router.output()).not.toContain('controller link lost');
    expect(linkedCount()).toBe(linkedBefore);
    expect(await routerOnline()).toBe(true);
    // New connections still go through.
    const again = await liveTunnel();
    again.stream.close();
  });

  it('well-formed unknown tokens: one connection gets its lookup budget, then a clear refusal; the link stays up', async () => {
    const linkedBefore = linkedCount();
    const t = await liveTunnel();
    const answers: string[] = [];
    for (let i = 0; i < LOOKUP_BURST + 10; i++)
      answers.push((await openStream(t.h2, randomUUID(), serviceId)).error ?? 'NONE');
    expect(answers.slice(0, LOOKUP_BURST).every((a) => a === 'INVALID_SESSION')).toBe(true);
    expect(answers.slice(LOOKUP_BURST + 2)).toContain('TOO_MANY_LOOKUPS');
    // The same unknown token again is answered from memory, budget or not.
    const known = randomUUID();
    const other = await routerSession(
      t.session.edgeRouters[0]!.urls.tls!,
      t.session.edgeRouters[0]!.fingerprint,
    );
    sessions.push(other);
    expect((await openStream(other, known, serviceId)).error).toBe('INVALID_SESSION');
    // The real session on the exhausted connection is known to the router: it still opens streams.
    const opened = await openStream(t.h2, t.session.token, serviceId);
    expect(opened.status).toBe(200);
    opened.stream.close();

    // A revocation during a flood of unknown tokens on many connections still arrives within a second.
    let stopFlood!: () => void;
    const stop = new Promise<void>((resolve) => (stopFlood = resolve));
    const flooding = flood(() => randomUUID(), stop);
    await new Promise((r) => setTimeout(r, 2000));
    const cut = closedWithin(t.stream);
    expect((await t.user.api.delete(`${CLIENT}/current-api-session`)).status).toBe(200);
    expect(await cut).toBeLessThan(CUT_WITHIN_MS);
    stopFlood();
    const flooded = await flooding;
    expect(flooded.get('INVALID_SESSION') ?? 0).toBeGreaterThan(0);
    expect(router.output()).not.toContain('controller link lost');
    expect(linkedCount()).toBe(linkedBefore);
  });
});
