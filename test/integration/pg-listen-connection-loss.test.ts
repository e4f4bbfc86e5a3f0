/**
 * Two controller instances on one PostgreSQL database, and instance A's LISTEN connection lost while B changes
 * what A keeps in memory. A's listening backend is first stopped (SIGSTOP: A's connection stays up, but
 * nothing reaches it), B changes something, and then the backend is terminated (pg_terminate_backend): the
 * notification of B's change never reaches A. Once A sees its connection gone it must not answer from what it
 * kept: while it cannot hear, every decision reads the database, and once it listens again it has rebuilt.
 *
 * The instances are told apart on the server by their connections' application_name (set in their database
 * URLs).
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import type { PgStore } from '../../controller/store/postgres/pg-store.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, tempDir } from '../helpers/controller.js';
import {
  create,
  signedInUser,
  startWorld,
  stopWorld,
  waitFor,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { testConfig } from '../helpers/test-database.js';

const A_NAME = 'postern-instance-a';
const B_NAME = 'postern-instance-b';

const named = (url: string, applicationName: string) =>
  `${url}${url.includes('?') ? '&' : '?'}application_name=${applicationName}`;

describe('an instance whose LISTEN connection is cut does not answer from what it kept', () => {
  let server: PostgresServer;
  let a: World;
  let b: RunningController;
  let bDir: string;
  let bAdmin: Api;
  let sql: pg.Client;

  beforeAll(async () => {
    server = await startPostgres();
    const database = await server.createDatabase();
    a = await startWorld({ config: { database: named(database, A_NAME) } });
    bDir = tempDir('postern-instance-b-');
    b = await startController(await testConfig(bDir, { database: named(database, B_NAME) }), {
      adminPassword: ADMIN_PASSWORD,
    });
    bAdmin = new Api(b.url);
    expect((await bAdmin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
    sql = new pg.Client({ connectionString: database });
    await sql.connect();
  }, 60_000);

  afterAll(async () => {
    await sql?.end();
    await b?.close();
    if (a) await stopWorld(a);
    rmSync(bDir, { recursive: true, force: true });
    await server?.stop();
  });

  /** A's listening backend, if it has one (only the outbox's listener ever runs LISTEN). */
  async function listenerOfA(): Promise<number | undefined> {
    const { rows } = await sql.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'`,
      [A_NAME],
    );
    return rows[0]?.pid;
  }

  /**
   * Makes `change` (at B) while A's listening backend is stopped, then terminates that backend: A never hears
   * of the change. Resolves once A knows its connection is lost (its caches stopped answering) or has listened
   * again on a new one.
   */
  async function changeUnheardByA(change: () => Promise<void>): Promise<void> {
    let pid: number | undefined;
    await waitFor(async () => (pid = await listenerOfA()) !== undefined, 10_000, 'A listens');
    process.kill(pid!, 'SIGSTOP');
    try {
      await change();
      await sql.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      process.kill(pid!, 'SIGCONT');
    }
    const caches = (a.bundle.controller.ctx.store as PgStore).caches;
    await waitFor(
      async () => !caches.isListening() || ((await listenerOfA()) ?? pid) !== pid,
      10_000,
      'A sees its listening connection gone',
    );
  }

  const servicesOf = async (user: Api): Promise<string[]> => {
    const res = await user.get(`${CLIENT}/services?limit=500`);
    expect(res.status).toBe(200);
    return (res.body.data as { id: string }[]).map((s) => s.id);
  };

  it('a service policy removed at B while A could not hear is not granted by A, before or after A listens again', async () => {
    const tag = unique('cut');
    const user = await signedInUser(a, [`${tag}-user`]);
    const serviceId = await create(a.admin, 'services', { name: `${tag}-svc` });
    const policyId = await create(a.admin, 'service-policies', {
      name: `${tag}-policy`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${tag}-user`],
      serviceRoles: [`@${serviceId}`],
    });
    // Twice: A's catalogue and caches hold the grant now.
    for (let i = 0; i < 2; i++) expect(await servicesOf(user.api)).toContain(serviceId);

    await changeUnheardByA(async () => {
      expect((await bAdmin.delete(`${MGMT}/service-policies/${policyId}`)).status).toBe(200);
    });
    // At once (most likely while A still cannot hear), then once A listens again.
    expect(await servicesOf(user.api)).not.toContain(serviceId);
    expect((await user.api.post(`${CLIENT}/sessions`, { serviceId, type: 'Dial' })).status).toBe(400);
    await waitFor(async () => (await listenerOfA()) !== undefined, 30_000, 'A listens again');
    expect(await servicesOf(user.api)).not.toContain(serviceId);
    expect((await user.api.post(`${CLIENT}/sessions`, { serviceId, type: 'Dial' })).status).toBe(400);
  });

  it('an identity disabled at B while A could not hear is refused by A once it listens again', async () => {
    const current = `${CLIENT}/current-api-session`;
    const user = await signedInUser(a, [unique('cut-user')]);
    // Twice: the API session and the identity are in A's caches now.
    for (let i = 0; i < 2; i++) expect((await user.api.get(current)).status).toBe(200);

    await changeUnheardByA(async () => {
      expect((await bAdmin.patch(`${MGMT}/identities/${user.id}`, { disabled: true })).status).toBe(200);
    });
    // Not asked while A cannot hear (that read would go to the database): what A kept from before must be
    // gone once it listens again.
    const caches = (a.bundle.controller.ctx.store as PgStore).caches;
    await waitFor(() => caches.isListening(), 30_000, 'A listens again');
    expect((await user.api.get(current)).status).toBe(401);
  });
});
