/**
 * Two controller processes on one PostgreSQL database, each started as users run it (`server/cli.ts`) with its
 * own embedded router. Each embedded router is its own edge router (the second instance used to take over the
 * first's entity: one router id, the first router's enrollment re-issued), both are listed in a session's
 * answer whichever instance grants it, an agent session created through A tunnels through B's router, and
 * access revoked at either instance cuts that stream. A restart of an instance keeps its router's id.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, type ControllerProcess } from '../helpers/controller.js';
import { controllerProcessScope } from '../helpers/controller-processes.js';
import {
  closeServer,
  closedWithin,
  create,
  dialSession,
  echoServer,
  openStream,
  publishService,
  roundTrip,
  routerSession,
  sha256,
  waitFor,
  type User,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

/** The push must cut within a second; generous on a loaded machine, still the requirement's order. */
const CUT_WITHIN_MS = 3000;

/** The `tls://host:port` the process's embedded router printed, once it has. */
async function routerUrlOf(p: ControllerProcess): Promise<string> {
  let url: string | undefined;
  await waitFor(
    () => (url = /router listening on (tls:\/\/\S+)/.exec(p.output())?.[1]) !== undefined,
    30_000,
    'embedded router listening',
  );
  return url!;
}

describe('several instances on one PostgreSQL, each with its own embedded router', () => {
  const scope = controllerProcessScope();
  let server: PostgresServer;
  let database: string;
  let echo: Awaited<ReturnType<typeof echoServer>>;

  beforeAll(async () => {
    server = await startPostgres();
    database = await server.createDatabase();
    echo = await echoServer();
  }, 60_000);

  afterAll(async () => {
    if (echo) await closeServer(echo.server, echo.sockets);
    await server?.stop();
  });

  const startInstance = async (dataDir: string) => {
    const p = await scope.start(['--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1'], {
      POSTERN_DATABASE_URL: database,
      POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    const routerUrl = await routerUrlOf(p);
    const admin = new Api(p.url);
    expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
    return { p, routerUrl, admin };
  };

  /** Routers named like an embedded one, online (linked to some instance). */
  const embeddedRouters = async (admin: Api) => {
    const res = await admin.get(`${MGMT}/edge-routers?limit=500`);
    expect(res.status).toBe(200);
    return (res.body.data as { id: string; name: string; isOnline: boolean }[]).filter((r) =>
      r.name.startsWith('embedded-router'),
    );
  };

  it('an agent session created through A tunnels through B’s router and is cut when revoked at either', async () => {
    const aDir = scope.newDir();
    const a = await startInstance(aDir);
    const b = await startInstance(scope.newDir());

    // Two routers, both online (each linked to its own instance), neither re-enrolled by the other.
    await waitFor(
      async () => (await embeddedRouters(a.admin)).filter((r) => r.isOnline).length === 2,
      30_000,
      'both embedded routers online',
    );
    const routers = await embeddedRouters(b.admin);
    expect(new Set(routers.map((r) => r.id)).size).toBe(2);
    expect(new Set(routers.map((r) => r.name)).size).toBe(2);

    const tag = unique('per');
    const service = await publishService(a.admin, echo.port, { attribute: `${tag}-svc` });
    await create(b.admin, 'service-policies', {
      name: `${tag}-policy`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${tag}-user`],
      serviceRoles: [`#${tag}-svc`],
    });

    const userAt = async (revokeTag: string): Promise<User> => {
      const name = unique('user');
      const id = await create(a.admin, 'identities', {
        name,
        type: 'User',
        isAdmin: false,
        roleAttributes: [`${tag}-user`, revokeTag],
      });
      await create(a.admin, 'authenticators', {
        method: 'updb',
        identityId: id,
        username: name,
        password: 'user-password',
      });
      const api = new Api(a.p.url);
      const login = await api.login(name, 'user-password', CLIENT);
      expect(login.status).toBe(200);
      return { id, name, api, apiSessionId: login.body.data.id as string };
    };

    /** A stream through B's router for a session A granted; the session's answer lists both routers. */
    const streamThroughB = async (user: User) => {
      const session = await dialSession(user, service.serviceId);
      const urls = session.edgeRouters.map((r) => r.urls.tls);
      expect(urls).toContain(a.routerUrl);
      expect(urls).toContain(b.routerUrl);
      const router = session.edgeRouters.find((r) => r.urls.tls === b.routerUrl)!;
      const h2 = await routerSession(router.urls.tls!, router.fingerprint);
      const opened = await openStream(h2, session.token, service.serviceId);
      expect(opened.status).toBe(200);
      const data = randomBytes(1024);
      expect(await roundTrip(opened.stream, data)).toBe(sha256(data));
      return { h2, stream: opened.stream };
    };

    // Revoked at B: the identity disabled there.
    const first = await userAt('first');
    const t1 = await streamThroughB(first);
    const cut1 = closedWithin(t1.stream);
    expect((await b.admin.patch(`${MGMT}/identities/${first.id}`, { disabled: true })).status).toBe(200);
    expect(await cut1).toBeLessThan(CUT_WITHIN_MS);
    t1.h2.destroy();

    // Revoked at A: the identity disabled there, the stream still on B's router.
    const second = await userAt('second');
    const t2 = await streamThroughB(second);
    const cut2 = closedWithin(t2.stream);
    expect((await a.admin.patch(`${MGMT}/identities/${second.id}`, { disabled: true })).status).toBe(200);
    expect(await cut2).toBeLessThan(CUT_WITHIN_MS);
    t2.h2.destroy();

    // A restarted on its folder keeps its router: the same id, online again, still two embedded routers.
    const before = new Map(routers.map((r) => [r.name, r.id]));
    await a.p.stop();
    scope.running.splice(scope.running.indexOf(a.p), 1);
    const again = await startInstance(aDir);
    await waitFor(
      async () => (await embeddedRouters(again.admin)).filter((r) => r.isOnline).length === 2,
      30_000,
      'both embedded routers online after the restart',
    );
    const after = await embeddedRouters(again.admin);
    expect(new Map(after.map((r) => [r.name, r.id]))).toEqual(before);
  }, 180_000);
});
