/**
 * The edge router as its own process, as an administrator deploys it: a controller serving HTTPS with a
 * private certificate (and no embedded router), a router enrolled with a one-time token from the management
 * API, and a service reached through it. Enrollment verifies the controller's certificate (it needs
 * `--controller-ca`, and says so), and a token works once and only before it expires.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, spawnController, tempDir, type ControllerProcess } from '../helpers/controller.js';
import {
  closeServer,
  dialSession,
  echoServer,
  openStream,
  publishService,
  roundTrip,
  routerSession,
  sha256,
  signedInUser,
  type World,
  waitFor,
} from '../helpers/data-plane-world.js';
import { RouterExit, spawnRouter, type RouterProcess } from '../helpers/router-process.js';

describe('a standalone router enrolled at an HTTPS controller', () => {
  const dir = tempDir('postern-router-standalone-');
  const cert = join(dir, 'controller-cert.pem');
  const key = join(dir, 'controller-key.pem');
  let controller: ControllerProcess;
  let admin: Api;
  let router: RouterProcess | undefined;
  const echo = echoServer();

  beforeAll(async () => {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
        ...['-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
        ...['-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'ignore' },
    );
    controller = await spawnController(
      [
        '--data-dir',
        join(dir, 'controller'),
        '--port',
        '0',
        '--no-router',
        '--tls-cert',
        cert,
        '--tls-key',
        key,
      ],
      { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD },
    );
    expect(controller.url).toMatch(/^https:/);
    admin = new Api(controller.url, undefined, readFileSync(cert, 'utf8'));
    expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  });

  afterAll(async () => {
    await router?.stop();
    await controller?.stop();
    const { server, sockets } = await echo;
    await closeServer(server, sockets);
    rmSync(dir, { recursive: true, force: true });
  });

  const newToken = async (name: string) => {
    const res = await admin.post(`${MGMT}/edge-routers`, { name });
    expect(res.status).toBe(201);
    return res.body.data.enrollmentToken as string;
  };
  const routerArgs = (token: string, data: string, extra: string[] = []) => [
    ...['--controller', controller.url, '--enroll', token, '--data-dir', join(dir, data)],
    ...['--port', '0', '--log-level', 'warn', ...extra],
  ];
  const exitOf = (started: Promise<RouterProcess>) =>
    started.then(
      (r) => {
        router = r;
        throw new Error('the router started');
      },
      (err: unknown) => err as RouterExit,
    );

  it('will not enroll without trusting the controller certificate, and says what to pass', async () => {
    const exit = await exitOf(spawnRouter(routerArgs(await newToken('untrusting'), 'r0')));
    expect(exit).toBeInstanceOf(RouterExit);
    expect(exit.code).toBe(1);
    expect(exit.output).toContain('--controller-ca');
  });

  it('enrolls with --controller-ca, links up, and carries a connection to the service', async () => {
    const token = await newToken('branch-router');
    router = await spawnRouter(routerArgs(token, 'r1', ['--controller-ca', cert]));
    const listed = await admin.get(
      `${MGMT}/edge-routers?filter=${encodeURIComponent('name="branch-router"')}`,
    );
    const detail = (listed.body.data as { name: string; isVerified: boolean; fingerprint: string }[]).find(
      (r) => r.name === 'branch-router',
    )!;
    expect(detail.isVerified).toBe(true);
    expect(router.output()).toContain(detail.fingerprint);

    const { port } = await echo;
    const world = { admin, url: controller.url } as World;
    const { serviceId } = await publishService(admin, port, { attribute: 'branch' });
    await admin.post(`${MGMT}/service-policies`, {
      name: 'branch-dial',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#branch-staff'],
      serviceRoles: ['#branch'],
    });
    const user = await signedInUser(world, ['branch-staff']);
    const session = await dialSession(user, serviceId);
    const offered = session.edgeRouters.find((r) => r.urls.tls === router!.url);
    expect(offered, 'the session names the standalone router').toBeDefined();
    const h2 = await routerSession(offered!.urls.tls!, offered!.fingerprint);
    try {
      const opened = await openStream(h2, session.token, serviceId);
      expect(opened.status).toBe(200);
      if (opened.status !== 200) return;
      const payload = Buffer.from('through the branch router');
      expect(await roundTrip(opened.stream, payload)).toBe(sha256(payload));
    } finally {
      h2.destroy();
    }
  });

  it('enrolls and links with --controller-fingerprint, the fingerprint a self-signed controller prints', async () => {
    const printed = new X509Certificate(readFileSync(cert, 'utf8')).fingerprint256;
    const pinned = await spawnRouter(
      routerArgs(await newToken('pinning-router'), 'r-pin', ['--controller-fingerprint', printed]),
    );
    try {
      const online = async () => {
        const res = await admin.get(
          `${MGMT}/edge-routers?filter=${encodeURIComponent('name="pinning-router"')}`,
        );
        return (res.body.data as { isOnline: boolean; isVerified: boolean }[])[0];
      };
      await waitFor(async () => (await online())?.isOnline === true, 60_000, 'the pinning router linked');
      expect(await online()).toMatchObject({ isVerified: true, isOnline: true });
    } finally {
      await pinned.stop();
    }
  });

  // ZAC offers the router detail's `enrollmentJwt` as a download (edge-routers-page.service.ts); the router
  // takes that file after --enroll, and the detail stops showing it once the router enrolled.
  it('enrolls from the enrollment JWT the router detail shows, as ZAC downloads it', async () => {
    const created = await admin.post(`${MGMT}/edge-routers`, { name: 'zac-jwt-router' });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const before = (await admin.get(`${MGMT}/edge-routers/${id}`)).body.data;
    expect(typeof before.enrollmentJwt).toBe('string');
    const jwtFile = join(dir, 'zac-jwt-router.jwt');
    writeFileSync(jwtFile, `${before.enrollmentJwt as string}\n`);
    const enrolled = await spawnRouter(routerArgs(jwtFile, 'r-jwt', ['--controller-ca', cert]));
    try {
      const after = (await admin.get(`${MGMT}/edge-routers/${id}`)).body.data;
      expect(after).toMatchObject({
        isVerified: true,
        enrollmentJwt: null,
        enrollmentToken: null,
        enrollmentExpiresAt: null,
      });
    } finally {
      await enrolled.stop();
    }
  });

  it('a token works once: a second router with the same token is refused', async () => {
    const token = await newToken('single-use');
    const first = await spawnRouter(routerArgs(token, 'r2', ['--controller-ca', cert]));
    await first.stop();
    const exit = await exitOf(spawnRouter(routerArgs(token, 'r3', ['--controller-ca', cert])));
    expect(exit.code).toBe(1);
    expect(exit.output).toMatch(/enrollment refused \(4\d\d\)/);
  });

  it('a forged token is refused', async () => {
    const exit = await exitOf(spawnRouter(routerArgs('not-a-real-token', 'r4', ['--controller-ca', cert])));
    expect(exit.code).toBe(1);
    expect(exit.output).toMatch(/enrollment refused \(4\d\d\)/);
  });
});
