/**
 * `/webhooks` (Postern): subscriptions through the CRUD kit, their deliveries, the dead-letter list
 * (`/webhook-deliveries?state=dead`), a redelivery, and the syslog export's status. Administrators only (the
 * management guard's default). The secret is write-only: `toWire` never shows it.
 */
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { pick, registerCrud } from '../http/crud.js';
import { detail, entityBase, iso, list } from '../http/envelope.js';
import { notFound, validationError } from '../api-error.js';
import { IdParams, errorResponses, listEnvelope, detailEnvelope } from '../../src/api/resources/envelopes.js';
import {
  DeliveryListQuerystring,
  SyslogStatus,
  WebhookCreate,
  WebhookDelivery,
  WebhookDetail,
  WebhookPatch,
} from '../../src/api/resources/webhooks.js';
import { SYSLOG_TARGET, type Delivery, type Webhook } from '../event-delivery-model.js';
import { webhookUrlProblem } from '../events/delivery/webhook-post.js';
import { MAX_WEBHOOKS } from '../events/delivery/enqueue.js';
import type { EventDelivery } from '../events/delivery/event-delivery.js';
import type { SyslogBuffer } from '../events/delivery/syslog-buffer.js';

const COLLECTION = 'webhooks';
const TAG = 'Webhooks';

export interface DeliveryParts {
  delivery: EventDelivery;
  syslogBuffer: SyslogBuffer | undefined;
  /** `tcp://host:port` or `tls://host:port`, for the status */
  syslogTarget: string | undefined;
}

const deliveryToWire = (d: Delivery) => ({
  id: d.id,
  webhookId: d.target,
  eventId: d.eventId,
  eventType: d.eventType,
  state: d.state,
  attempts: d.attempts,
  lastError: d.lastError,
  nextAttemptAt: d.state === 'pending' ? iso(d.nextAttemptAt) : null,
  createdAt: iso(d.createdAt),
  deliveredAt: iso(d.deliveredAt),
});

export function registerWebhookRoutes(app: Api, ctx: ControllerContext, parts: DeliveryParts): void {
  const { store } = ctx;
  const counts = new Map<string, { pending: number; dead: number }>();
  registerCrud<Webhook>(app, ctx, {
    collection: COLLECTION,
    tag: TAG,
    repo: store.webhooks,
    schemas: { create: WebhookCreate, update: WebhookCreate, patch: WebhookPatch, detail: WebhookDetail },
    async build(body, mode, existing, id, now) {
      const url = pick<string>(body, 'url', mode, existing?.url, '');
      const problem = webhookUrlProblem(url);
      if (problem) throw validationError([{ field: 'url', reason: problem, value: url }]);
      if (mode === 'create' && (await store.webhooks.count()) >= MAX_WEBHOOKS)
        throw validationError([{ field: 'url', reason: `at most ${MAX_WEBHOOKS} webhooks` }]);
      return {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        url,
        eventTypes: pick(body, 'eventTypes', mode, existing?.eventTypes, ['*']),
        // Never logged, never answered: kept only to sign.
        secret: pick(body, 'secret', mode, existing?.secret, ''),
        enabled: pick(body, 'enabled', mode, existing?.enabled, true),
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
    },
    async prepare(hooks) {
      counts.clear();
      for (const h of hooks)
        counts.set(h.id, {
          pending: await store.deliveries.countPending(h.id),
          dead: (await store.deliveries.list({ target: h.id, state: 'dead', limit: 1, offset: 0 }))
            .totalCount,
        });
    },
    toWire: (h) => ({
      ...entityBase(COLLECTION, h),
      url: h.url,
      eventTypes: h.eventTypes,
      enabled: h.enabled,
      pending: counts.get(h.id)?.pending ?? 0,
      dead: counts.get(h.id)?.dead ?? 0,
    }),
    // A subscription's queued and dead-lettered deliveries go with it.
    afterWrite: async (h, op) => {
      if (op === 'delete') await store.deliveries.deleteTarget(h.id);
    },
  });

  const listDeliveries = async (
    target: string | undefined,
    q: { state?: string; limit?: number; offset?: number },
  ) => {
    const limit = q.limit ?? 100;
    const offset = q.offset ?? 0;
    const page = await store.deliveries.list({
      ...(target !== undefined ? { target } : {}),
      ...(q.state ? { state: q.state as Delivery['state'] } : {}),
      limit,
      offset,
    });
    return list(page.items.map(deliveryToWire), { limit, offset, totalCount: page.totalCount });
  };

  app.get(
    `/${COLLECTION}/:id/deliveries`,
    {
      schema: {
        tags: [TAG],
        params: IdParams,
        querystring: DeliveryListQuerystring,
        response: { 200: listEnvelope(WebhookDelivery), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!(await store.webhooks.get(id))) throw notFound(`${COLLECTION}/${id}`);
      return listDeliveries(id, request.query);
    },
  );

  // Every subscription's deliveries (and the syslog export's): `?state=dead` is the dead-letter list.
  app.get(
    '/webhook-deliveries',
    {
      schema: {
        tags: [TAG],
        querystring: DeliveryListQuerystring,
        response: { 200: listEnvelope(WebhookDelivery), ...errorResponses(400, 401) },
      },
    },
    async (request) => listDeliveries(request.query.webhookId, request.query),
  );

  app.post(
    '/webhook-deliveries/:id/redeliver',
    {
      schema: {
        tags: [TAG],
        params: IdParams,
        response: { 200: detailEnvelope(WebhookDelivery), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const existing = await store.deliveries.get(id);
      if (!existing) throw notFound(`webhook-deliveries/${id}`);
      if (existing.state === 'pending')
        throw validationError([{ field: 'id', reason: 'this delivery is still pending', value: id }]);
      const fresh = await store.deliveries.redeliver(id);
      if (!fresh) throw notFound(`webhook-deliveries/${id}`);
      parts.delivery.wake();
      return detail(deliveryToWire(fresh));
    },
  );

  app.get(
    '/event-export/syslog',
    {
      schema: {
        tags: [TAG],
        response: { 200: detailEnvelope(SyslogStatus), ...errorResponses(401) },
      },
    },
    async () => {
      const sender = parts.delivery.syslog;
      const buffer = parts.syslogBuffer;
      return detail({
        configured: sender !== undefined,
        target: parts.syslogTarget ?? null,
        connected: sender?.connected ?? false,
        pending: sender ? await store.deliveries.countPending(SYSLOG_TARGET) : 0,
        capacity: buffer?.capacity ?? 0,
        full: buffer?.full ?? false,
        dropped: buffer?.dropped ?? 0,
        lastError: sender?.lastError ?? null,
      });
    },
  );
}
