/**
 * The console shows a router online exactly while its link is up, whichever controller instance it linked
 * to: two instances on one PostgreSQL database, a standalone router process linked to instance A, both
 * instances answering GET /edge-routers/{id} with isOnline true while the link is up, and false within
 * seconds once the router process is killed.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, tempDir } from '../helpers/controller.js';
import { waitFor } from '../helpers/data-plane-world.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { spawnRouter, type RouterProcess } from '../helpers/router-process.js';
import { testConfig } from '../helpers/test-database.js';

describe('router presence across two controller instances', () => {
  let server: PostgresServer;
  const dir = tempDir('postern-presence-');
  const instances: RunningController[] = [];
  const admins: Api[] = [];
  let router: RouterProcess | undefined;
  let routerId = '';

  beforeAll(async () => {
    server = await startPostgres();
    const database = await server.createDatabase();
    for (const name of ['a', 'b']) {
      const instance = await startController(await testConfig(join(dir, name), { database }), {
        adminPassword: ADMIN_PASSWORD,
      });
      instances.push(instance);
      const admin = new Api(instance.url);
      expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
      admins.push(admin);
    }
  }, 60_000);

  afterAll(async () => {
    await router?.stop();
    for (const instance of instances) await instance.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const online = async (admin: Api) => {
    const res = await admin.get(`${MGMT}/edge-routers/${routerId}`);
    expect(res.status).toBe(200);
    return res.body.data.isOnline as boolean;
  };

  it('is online at both instances while linked to one, offline at both once its process is killed', async () => {
    const created = await admins[0]!.post(`${MGMT}/edge-routers`, { name: 'branch' });
    expect(created.status).toBe(201);
    routerId = created.body.data.id as string;
    router = await spawnRouter([
      ...['--controller', instances[0]!.url, '--enroll', created.body.data.enrollmentToken as string],
      ...['--data-dir', join(dir, 'router'), '--port', '0', '--log-level', 'warn'],
    ]);
    await waitFor(() => online(admins[0]!), 20_000, 'online at the instance it linked to');
    await waitFor(() => online(admins[1]!), 20_000, 'online at the other instance');

    process.kill(router.pid, 'SIGKILL');
    await router.stop();
    router = undefined;
    for (const admin of admins)
      await waitFor(async () => !(await online(admin)), 15_000, 'offline once the process is gone');
  }, 90_000);
});
