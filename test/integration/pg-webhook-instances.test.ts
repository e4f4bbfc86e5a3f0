/**
 * Two controller processes on one PostgreSQL database, both delivering the one queue: every event reaches
 * the subscription's receiver exactly once (the claims' row locks and leases give each delivery to one
 * instance) and in the order it was recorded, whichever instance recorded it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { controllerProcessScope } from '../helpers/controller-processes.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const { newDir, start } = controllerProcessScope();
const SECRET = 'two-instances-webhook-secret-42';
const PASSWORD = 'two-instances-password';
const EVENTS = 30;

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(() => server?.stop());

describe('webhook delivery from two instances on one PostgreSQL database', () => {
  it('delivers each event once, in order, whichever instance recorded it', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    try {
      const env = { POSTERN_DATABASE_URL: await server.createDatabase(), POSTERN_ADMIN_PASSWORD: PASSWORD };
      const instances = [];
      for (let i = 0; i < 2; i++) instances.push(await start(['--data-dir', newDir(), '--port', '0'], env));
      const admins = instances.map((p) => new Api(p.url));
      for (const a of admins) expect((await a.login('admin', PASSWORD)).status).toBe(200);

      const hook = await admins[0]!.post(`${MGMT}/webhooks`, {
        name: 'soc',
        url: receiver.url,
        eventTypes: ['admin.created'],
        secret: SECRET,
      });
      expect(hook.status).toBe(201);
      // Events recorded at both instances in turn: each instance's commit wakes its own delivery loop, and
      // both poll the queue, so both race for every delivery.
      const ids: string[] = [hook.body.data.id];
      for (let n = 0; n < EVENTS; n++) {
        const made = await admins[n % 2]!.post(`${MGMT}/services`, { name: `svc-${n}` });
        expect(made.status).toBe(201);
        ids.push(made.body.data.id);
      }
      const got = await receiver.waitFor(ids.length, 120_000);
      // A little longer: a second copy of any event would arrive now.
      await new Promise((r) => setTimeout(r, 3000));
      expect(receiver.accepted.map((e) => (e.details as { entityId: string }).entityId)).toEqual(ids);
      expect(new Set(got.map((e) => e.id)).size).toBe(got.length);
      const delivered = await admins[1]!.get(
        `${MGMT}/webhooks/${hook.body.data.id}/deliveries?state=delivered&limit=500`,
      );
      expect(delivered.body.meta.pagination.totalCount).toBe(ids.length);
      // one attempt each: none went twice
      expect(delivered.body.data.every((d: { attempts: number }) => d.attempts === 1)).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 240_000);
});
