/**
 * A warn check's deadline outlives the controller instance that armed it: two instances on one PostgreSQL
 * database, a device failing a warn check holds an edge session through instance A, and A stops before the
 * deadline without firing its timers. B, which never evaluated that device, still revokes the session at the
 * deadline: not before it, and at most about two takeover intervals after it (deadline-takeover.ts).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { TAKEOVER_INTERVAL_MS } from '../../controller/access/engine/deadline-takeover.js';
import type { PgStore } from '../../controller/store/postgres/pg-store.js';
import { Api, CLIENT } from '../helpers/api.js';
import { ADMIN_PASSWORD, tempDir } from '../helpers/controller.js';
import {
  create,
  dialSession,
  publishService,
  signedInUser,
  startWorld,
  type World,
} from '../helpers/data-plane-world.js';
import { unique } from '../helpers/posture-world.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { testConfig } from '../helpers/test-database.js';

const DEADLINE_MS = 4000;
/** Slack for a loaded machine on top of the documented bound. */
const SLACK_MS = 1500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a warn deadline armed by an instance that stopped', () => {
  let server: PostgresServer;
  let a: World;
  let aClosed = false;
  let b: RunningController;
  let bDir: string;

  beforeAll(async () => {
    server = await startPostgres();
    const database = await server.createDatabase();
    a = await startWorld({ config: { database } });
    bDir = tempDir('postern-instance-b-');
    b = await startController(await testConfig(bDir, { database }), { adminPassword: ADMIN_PASSWORD });
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    if (a && !aClosed) await a.bundle.close();
    if (a) rmSync(a.dataDir, { recursive: true, force: true });
    if (bDir) rmSync(bDir, { recursive: true, force: true });
    await server?.stop();
  });

  it('is enforced by another instance: not before the deadline, within two takeover intervals', async () => {
    const tag = unique('wd');
    const { serviceId } = await publishService(a.admin, 65_000, { attribute: `${tag}-svc` });
    await create(a.admin, 'service-policies', {
      name: `${tag}-policy`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${tag}-user`],
      serviceRoles: [`#${tag}-svc`],
      postureCheckRoles: [`#${tag}-domain`],
    });
    const enforceFrom = new Date(Date.now() + DEADLINE_MS);
    // The device has reported no domain at all: it fails the check, which only warns until the deadline.
    await create(a.admin, 'posture-checks', {
      name: `${tag}-domain`,
      typeId: 'DOMAIN',
      domains: ['corp.example'],
      roleAttributes: [`${tag}-domain`],
      enforcement: { mode: 'warn', enforceFrom: enforceFrom.toISOString() },
    });
    // Signed in after the catalogue changes, which B hears of too: only A ever evaluates this user.
    const user = await signedInUser(a, [`${tag}-user`]);
    const session = await dialSession(user, serviceId);

    // The deadline is A's: stored, owned by A; B holds no timer of its own for it.
    const pool = (b.ctx.store as PgStore).pool;
    const row = await pool.query<{ owner: string }>('SELECT owner FROM deadlines WHERE subject = $1', [
      user.apiSessionId,
    ]);
    expect(row.rows).toEqual([{ owner: a.bundle.controller.ctx.store.instanceId }]);
    expect(b.parts.engine.timers.dueAt(user.apiSessionId)).toBeUndefined();

    await a.bundle.close();
    aClosed = true;
    expect(Date.now(), 'A must stop before the deadline').toBeLessThan(enforceFrom.getTime());

    const atB = new Api(b.url, user.api.token);
    let revokedAt = 0;
    while (Date.now() < enforceFrom.getTime() + 2 * TAKEOVER_INTERVAL_MS + SLACK_MS + 2000) {
      const status = (await atB.get(`${CLIENT}/sessions/${session.id}`)).status;
      if (status === 404) {
        revokedAt = Date.now();
        break;
      }
      expect(status).toBe(200);
      await sleep(50);
    }
    expect(revokedAt, 'the session outlived its deadline at B').toBeGreaterThan(0);
    const late = revokedAt - enforceFrom.getTime();
    expect(late).toBeGreaterThanOrEqual(-100);
    expect(late).toBeLessThan(2 * TAKEOVER_INTERVAL_MS + SLACK_MS);
    // Enforced now: nothing is left to change by itself, so the deadline is gone, and B refuses a new session.
    const left = await pool.query('SELECT 1 FROM deadlines WHERE subject = $1', [user.apiSessionId]);
    expect(left.rowCount).toBe(0);
    expect((await atB.post(`${CLIENT}/sessions`, { serviceId })).status).toBe(409);
  }, 30_000);
});
