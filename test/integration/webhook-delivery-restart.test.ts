/**
 * At-least-once across a crash, on the real controller process (both stores: a SQLite file here, a PostgreSQL
 * database on the suite's PostgreSQL run): the controller is killed with SIGKILL while a webhook delivery is
 * in flight (the receiver has the request and has not answered), and a controller restarted on the same data
 * delivers that event once its lease ends, then the one queued behind it, in order.
 */
import { describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { controllerProcessScope } from '../helpers/controller-processes.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const { newDir, start } = controllerProcessScope();
const SECRET = 'restart-webhook-secret-0123456789';
const env = { POSTERN_ADMIN_PASSWORD: 'restart-webhook-password' };

describe('webhook delivery across a SIGKILL', () => {
  it('delivers the event that was in flight when the controller was killed, after the restart, then the next', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    try {
      const dir = newDir();
      const first = await start(['--data-dir', dir, '--port', '0'], env);
      const admin = new Api(first.url);
      expect((await admin.login('admin', env.POSTERN_ADMIN_PASSWORD)).status).toBe(200);

      // The subscription's own creation is its first event: the receiver takes it and never answers.
      const held = receiver.holdNext();
      const hook = await admin.post(`${MGMT}/webhooks`, {
        name: 'siem',
        url: receiver.url,
        eventTypes: ['admin.created'],
        secret: SECRET,
      });
      expect(hook.status).toBe(201);
      const inFlight = await held;
      expect(inFlight).toMatchObject({ type: 'admin.created', details: { entityId: hook.body.data.id } });
      // Committed while the first is in flight: queued behind it.
      const service = await admin.post(`${MGMT}/services`, { name: 'queued-behind' });
      expect(service.status).toBe(201);

      await first.stop('SIGKILL');
      expect(first.child.signalCode).toBe('SIGKILL');
      expect(receiver.accepted).toEqual([]);

      await start(['--data-dir', dir, '--port', '0'], env);
      // The killed controller's lease (30 s) ends first: a generous bound over it.
      const got = await receiver.waitFor(2, 150_000);
      expect(got.map((e) => e.id)).toEqual([inFlight.id, got[1]!.id]);
      expect(got[1]).toMatchObject({ type: 'admin.created', details: { entityId: service.body.data.id } });
      expect(receiver.badSignatures).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 240_000);
});
