/**
 * Webhooks end to end on a real controller (both stores): subscriptions managed through the API, audit events
 * queued in their transaction (enqueueDeliveries, as the audit writer calls it), delivered signed to a real
 * receiver on loopback that verifies every signature, in order, retried through an outage without loss,
 * dead-lettered after the attempts run out and redelivered on request.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import type { AuditEvent } from '../../controller/event-delivery-model.js';

const SECRET = 'a-webhook-secret-of-some-length';
let controller: TestController;
let admin: Api;

beforeAll(async () => {
  controller = await startTestController({
    eventDelivery: { pollMs: 100, retryMinMs: 100, retryMaxMs: 400, maxAttempts: 4 },
  });
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(() => controller.dispose());

const event = (type: string, n: number): AuditEvent => ({
  id: randomUUID(),
  type,
  createdAt: new Date().toISOString(),
  actor: { id: 'admin', name: 'admin' },
  identityId: null,
  serviceId: null,
  reference: `REF-${n}`,
  details: { n },
});

/** Records events as the audit writer will: each in a transaction, deliveries queued in it. */
async function record(events: AuditEvent[]): Promise<void> {
  for (const e of events)
    await controller.ctx.store.transaction(() => controller.ctx.eventDeliveries!.enqueueDeliveries(e));
}

/**
 * By default the types of the made-up events above only: the controller's own trail (this subscription's
 * creation, for one) would otherwise reach the receiver too.
 */
async function subscribe(
  url: string,
  eventTypes: string[] = ['admin.change', 'session.cut'],
): Promise<string> {
  const res = await admin.post(`${MGMT}/webhooks`, {
    name: `hook-${randomUUID()}`,
    url,
    eventTypes,
    secret: SECRET,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as string;
}

describe('webhook subscriptions', () => {
  it('never shows the secret back and refuses bad URLs naming the field', async () => {
    const id = await subscribe('https://siem.example.com/hook');
    const one = await admin.get(`${MGMT}/webhooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.data.url).toBe('https://siem.example.com/hook');
    expect(JSON.stringify(one.body)).not.toContain(SECRET);
    expect(JSON.stringify((await admin.get(`${MGMT}/webhooks`)).body)).not.toContain(SECRET);

    const plain = await admin.post(`${MGMT}/webhooks`, {
      name: 'plain',
      url: 'http://siem.example.com/hook',
      eventTypes: ['*'],
      secret: SECRET,
    });
    expect(plain.status).toBe(400);
    expect(plain.body.error.cause.field).toBe('url');
    const none = await admin.post(`${MGMT}/webhooks`, {
      name: 'none',
      url: 'https://siem.example.com/hook',
      eventTypes: [],
      secret: SECRET,
    });
    expect(none.status).toBe(400);
    const patched = await admin.patch(`${MGMT}/webhooks/${id}`, { url: 'http://10.0.0.1/hook' });
    expect(patched.status).toBe(400);
    expect((await admin.get(`${MGMT}/webhooks/${id}`)).body.data.url).toBe('https://siem.example.com/hook');
    expect((await admin.delete(`${MGMT}/webhooks/${id}`)).status).toBe(200);
  });
});

describe('webhook delivery', () => {
  it('delivers every event signed, in order, through an outage, only the subscribed types', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    const typed = await new WebhookReceiver(SECRET).start();
    try {
      const id = await subscribe(receiver.url);
      const typedId = await subscribe(typed.url, ['session.cut']);
      receiver.failNext(3);
      const events = Array.from({ length: 8 }, (_, n) => event(n % 2 ? 'session.cut' : 'admin.change', n));
      await record(events);
      const got = await receiver.waitFor(events.length);
      expect(receiver.refused).toBe(3);
      expect(receiver.badSignatures).toBe(0);
      // At least once: a retried event may come again, but in order and none missing.
      const firstSeen = got.map((e) => e.id).filter((x, i, all) => all.indexOf(x) === i);
      expect(firstSeen).toEqual(events.map((e) => e.id));
      const cuts = await typed.waitFor(4);
      expect(cuts.map((e) => e.id)).toEqual(events.filter((e) => e.type === 'session.cut').map((e) => e.id));
      const deliveries = await admin.get(`${MGMT}/webhooks/${id}/deliveries?state=delivered`);
      expect(deliveries.body.meta.pagination.totalCount).toBe(events.length);
      await admin.delete(`${MGMT}/webhooks/${id}`);
      await admin.delete(`${MGMT}/webhooks/${typedId}`);
    } finally {
      await receiver.close();
      await typed.close();
    }
  });

  it("delivers the audit trail's own events: an administrator's change, as GET /audit-events shows it", async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    try {
      // Every type: its own creation is the first event it gets, the identity's the second.
      const id = await subscribe(receiver.url, ['*']);
      const name = `hooked-${randomUUID()}`;
      const created = await admin.post(`${MGMT}/identities`, { name, type: 'User', isAdmin: false });
      expect(created.status).toBe(201);
      const [own, got] = await receiver.waitFor(2);
      expect(own).toMatchObject({ type: 'admin.created', details: { entityType: 'webhooks', entityId: id } });
      expect(JSON.stringify(own)).not.toContain(SECRET);
      expect(got).toMatchObject({ type: 'admin.created', identityId: created.body.data.id });
      const listed = await admin.get(`${MGMT}/audit-events/${got!.id}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual(got);
      await admin.delete(`${MGMT}/webhooks/${id}`);
    } finally {
      await receiver.close();
    }
  });

  it('queues nothing for an event whose transaction rolled back', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    try {
      const id = await subscribe(receiver.url);
      const lost = event('admin.change', 100);
      await expect(
        controller.ctx.store.transaction(async () => {
          await controller.ctx.eventDeliveries!.enqueueDeliveries(lost);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const kept = event('admin.change', 101);
      await record([kept]);
      const got = await receiver.waitFor(1);
      expect(got.map((e) => e.id)).toEqual([kept.id]);
      await admin.delete(`${MGMT}/webhooks/${id}`);
    } finally {
      await receiver.close();
    }
  });

  it('dead-letters after the attempts run out, holds later events back meanwhile, and redelivers', async () => {
    const receiver = await new WebhookReceiver(SECRET).start();
    try {
      const id = await subscribe(receiver.url);
      receiver.failNext(4);
      const [first, second] = [event('admin.change', 200), event('admin.change', 201)];
      await record([first, second]);
      // The second goes only once the first is dead-lettered (order per subscription).
      const got = await receiver.waitFor(1);
      expect(got.map((e) => e.id)).toEqual([second.id]);
      const dead = await admin.get(`${MGMT}/webhook-deliveries?state=dead&webhookId=${id}`);
      expect(dead.status).toBe(200);
      expect(dead.body.data).toHaveLength(1);
      const letter = dead.body.data[0];
      expect(letter).toMatchObject({ eventId: first.id, attempts: 4, state: 'dead' });
      expect(letter.lastError).toContain('503');
      const again = await admin.post(`${MGMT}/webhook-deliveries/${letter.id}/redeliver`);
      expect(again.status).toBe(200);
      const after = await receiver.waitFor(2);
      expect(after.map((e) => e.id)).toEqual([second.id, first.id]);
      expect(
        (await admin.get(`${MGMT}/webhook-deliveries?state=dead&webhookId=${id}`)).body.data,
      ).toHaveLength(0);
      await admin.delete(`${MGMT}/webhooks/${id}`);
    } finally {
      await receiver.close();
    }
  });
});
