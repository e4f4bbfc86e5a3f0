/**
 * Several controller instances on one PostgreSQL database, as behind a load balancer: instance A with its
 * embedded edge router, instance B without one. What one instance changes, the other enforces at once: an
 * administrator's change at B revokes a session made at A and cuts its live stream at A's router within a
 * second; posture reported for one identity through both at once leaves one consistent state both agree on.
 */
import { rmSync } from 'node:fs';
import type { ClientHttp2Session } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, tempDir } from '../helpers/controller.js';
import {
  closeServer,
  closedWithin,
  echoServer,
  openLiveTunnel,
  routerSession,
  startWorld,
  stopWorld,
  waitFor,
  type World,
} from '../helpers/data-plane-world.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { testConfig } from '../helpers/test-database.js';

/** The push must cut within a second; the bound is the requirement, not a benchmark. */
const CUT_WITHIN_MS = 1000;

describe('two controller instances on one PostgreSQL database', () => {
  let server: PostgresServer;
  let a: World;
  let b: RunningController;
  let bDir: string;
  let bAdmin: Api;
  let echo: Awaited<ReturnType<typeof echoServer>>;
  let h2: ClientHttp2Session | undefined;

  beforeAll(async () => {
    server = await startPostgres();
    const database = await server.createDatabase();
    a = await startWorld({ config: { database } });
    bDir = tempDir('postern-instance-b-');
    b = await startController(await testConfig(bDir, { database }), { adminPassword: ADMIN_PASSWORD });
    bAdmin = new Api(b.url);
    expect((await bAdmin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
    echo = await echoServer();
  }, 60_000);

  afterAll(async () => {
    h2?.destroy();
    if (echo) await closeServer(echo.server, echo.sockets);
    await b?.close();
    if (a) await stopWorld(a);
    rmSync(bDir, { recursive: true, force: true });
    await server?.stop();
  });

  /** A DOMAIN-guarded service, a user of A passing it, and a working stream through A's router. */
  const liveTunnelAtA = () =>
    openLiveTunnel(a, {
      tagPrefix: 'mi',
      bytes: 2048,
      echoPort: echo.port,
      router: async (url, fingerprint) => (h2 ??= await routerSession(url, fingerprint)),
    });

  it("an administrator's change at B revokes A's session and cuts its stream at A's router within a second", async () => {
    const t = await liveTunnelAtA();
    const cut = closedWithin(t.stream);
    expect((await bAdmin.delete(`${MGMT}/service-policies/${t.policyId}`)).status).toBe(200);
    expect(await cut).toBeLessThan(CUT_WITHIN_MS);
    expect((await t.user.api.get(`${CLIENT}/sessions/${t.session.id}`)).status).toBe(404);
    // And A decides by B's change: no new session for the service.
    const again = await t.user.api.post(`${CLIENT}/sessions`, { serviceId: t.serviceId });
    expect(again.status).toBe(400);
  });

  it('disabling the identity at B cuts the stream made at A', async () => {
    const t = await liveTunnelAtA();
    const cut = closedWithin(t.stream);
    expect((await bAdmin.patch(`${MGMT}/identities/${t.user.id}`, { disabled: true })).status).toBe(200);
    expect(await cut).toBeLessThan(CUT_WITHIN_MS);
  });

  it('posture reported for one identity through both instances at once leaves one state both agree on', async () => {
    const t = await liveTunnelAtA();
    const bUser = new Api(b.url);
    expect((await bUser.login(t.user.name, 'user-password', CLIENT)).status).toBe(200);
    const domains = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0 ? 'corp.example' : `other-${i}.example`,
    );
    const answers = await Promise.all(
      domains.map((domain, i) =>
        (i % 2 === 0 ? t.user.api : bUser).post(`${CLIENT}/posture-response`, {
          id: t.checkId,
          typeId: 'DOMAIN',
          domain,
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(domains.map(() => 201));
    const seenByA = (await a.admin.get(`${MGMT}/identities/${t.user.id}/posture-data`)).body.data;
    const seenByB = (await bAdmin.get(`${MGMT}/identities/${t.user.id}/posture-data`)).body.data;
    expect(seenByB).toEqual(seenByA);
    const stored = seenByA.domain.domain as string;
    expect(domains).toContain(stored);
    // Access follows the stored value, the same through either instance.
    const fromA = await t.user.api.post(`${CLIENT}/sessions`, { serviceId: t.serviceId });
    const fromB = await bUser.post(`${CLIENT}/sessions`, { serviceId: t.serviceId });
    const expected = stored === 'corp.example' ? 201 : 409;
    expect([fromA.status, fromB.status]).toEqual([expected, expected]);
  });

  it('A answers from its caches only what B has not changed: a session ended and an identity disabled at B are refused at A', async () => {
    const t = await liveTunnelAtA();
    const current = `${CLIENT}/current-api-session`;
    // Twice at A: the API session, the identity and its auth policy are in A's caches now.
    for (let i = 0; i < 2; i++) expect((await t.user.api.get(current)).status).toBe(200);
    // The same API session ended through B: A hears it (NOTIFY) and refuses the token.
    const atB = new Api(b.url, t.user.api.token);
    expect((await atB.delete(current)).status).toBe(200);
    await waitFor(
      async () => (await t.user.api.get(current)).status === 401,
      5_000,
      'A refuses the ended session',
    );
    // A second API session, cached at A, and its identity disabled at B.
    const again = new Api(a.url);
    expect((await again.login(t.user.name, 'user-password', CLIENT)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await again.get(current)).status).toBe(200);
    expect((await bAdmin.patch(`${MGMT}/identities/${t.user.id}`, { disabled: true })).status).toBe(200);
    await waitFor(
      async () => (await again.get(current)).status === 401,
      5_000,
      'A refuses the disabled identity',
    );
  });
});
