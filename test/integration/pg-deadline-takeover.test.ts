/**
 * A posture deadline outlives the controller instance that armed it: two instances on one PostgreSQL
 * database, a user passes MFA (timeout 2 s) at A and holds an edge session, and A stops before the timeout
 * without firing its timers. B, which never evaluated that user, still revokes the session: not before the
 * timeout, and at most about two takeover intervals after it (deadline-takeover.ts).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { MASTER_KEY_ENV } from '../../controller/platform/keys/master-key.js';
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

const TIMEOUT_MS = 2000;
/** Slack for a loaded machine on top of the documented bound. */
const SLACK_MS = 1500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a posture deadline armed by an instance that stopped', () => {
  let server: PostgresServer;
  let a: World;
  let aClosed = false;
  let b: RunningController;
  let bDir: string;
  const savedKey = process.env[MASTER_KEY_ENV];

  beforeAll(async () => {
    // Both instances must read the MFA data the other sealed.
    process.env[MASTER_KEY_ENV] = randomBytes(32).toString('base64');
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
    if (savedKey === undefined) delete process.env[MASTER_KEY_ENV];
    else process.env[MASTER_KEY_ENV] = savedKey;
  });

  it('is enforced by another instance: not before the timeout, within two takeover intervals', async () => {
    const tag = unique('dl');
    await create(a.admin, 'posture-checks', {
      name: `${tag}-mfa`,
      typeId: 'MFA',
      timeoutSeconds: TIMEOUT_MS / 1000,
      roleAttributes: [`${tag}-mfa`],
    });
    // Nothing dials through it: the edge session alone is what is revoked.
    const { serviceId } = await publishService(a.admin, 65_000, { attribute: `${tag}-svc` });
    await create(a.admin, 'service-policies', {
      name: `${tag}-policy`,
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: [`#${tag}-user`],
      serviceRoles: [`#${tag}-svc`],
      postureCheckRoles: [`#${tag}-mfa`],
    });
    const user = await signedInUser(a, [`${tag}-user`]);

    // What A's MFA module publishes when the user's TOTP code is accepted there.
    const passedAt = performance.now();
    await a.bundle.controller.ctx.events.publish('mfa.passed', user.apiSessionId, user.id);
    const session = await dialSession(user, serviceId);

    // The deadline is A's: stored, owned by A; B holds no timer of its own for it.
    const pool = (b.ctx.store as PgStore).pool;
    const row = await pool.query<{ owner: string }>('SELECT owner FROM deadlines WHERE subject = $1', [
      user.apiSessionId,
    ]);
    expect(row.rows).toEqual([{ owner: a.bundle.controller.ctx.store.instanceId }]);
    expect(b.parts.engine.timers.dueAt(user.apiSessionId)).toBeUndefined();

    // A stops before the timeout; closing stops its timers without firing them.
    await a.bundle.close();
    aClosed = true;
    expect(performance.now() - passedAt, 'A must stop before the timeout').toBeLessThan(TIMEOUT_MS);

    const atB = new Api(b.url, user.api.token);
    let revokedAt = 0;
    while (performance.now() - passedAt < TIMEOUT_MS + 2 * TAKEOVER_INTERVAL_MS + SLACK_MS + 2000) {
      const status = (await atB.get(`${CLIENT}/sessions/${session.id}`)).status;
      if (status === 404) {
        revokedAt = performance.now();
        break;
      }
      expect(status).toBe(200);
      await sleep(50);
    }
    expect(revokedAt, 'the session outlived its deadline at B').toBeGreaterThan(0);
    const elapsed = revokedAt - passedAt;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2 * TAKEOVER_INTERVAL_MS + SLACK_MS);
    // B re-evaluated: nothing is left to change by itself, so the deadline is gone too.
    const left = await pool.query('SELECT 1 FROM deadlines WHERE subject = $1', [user.apiSessionId]);
    expect(left.rowCount).toBe(0);
    // And the user is refused a new session for the service at B.
    expect((await atB.post(`${CLIENT}/sessions`, { serviceId })).status).toBe(409);
  }, 30_000);
});
