/**
 * Webhook subscriptions (Postern): `/webhooks`, where audit events are POSTed, signed with the subscription's
 * secret; their deliveries (`/webhooks/{id}/deliveries`, `/webhook-deliveries` across subscriptions, the
 * dead-letter list being `?state=dead`) and a redelivery. The secret is write-only: no answer shows it. What
 * the schemas cannot say (an https URL, plain http only to loopback) the controller checks, naming the field.
 */
import { Type } from '@sinclair/typebox';
import { BaseEntity, DateTime, Name, Tags, writeBodies } from './fields.js';

/** A secret shorter than this is refused: it keys an HMAC an attacker could otherwise guess. */
export const WEBHOOK_SECRET_MIN = 16;
/** Event types a subscription may list. */
export const WEBHOOK_EVENT_TYPES_MAX = 100;

const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9*._-]+$' }), {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES_MAX,
  uniqueItems: true,
  description: "the event types delivered; ['*'] delivers every type",
});

export const { create: WebhookCreate, patch: WebhookPatch } = writeBodies({
  name: Name,
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https://…; plain http only to loopback' }),
  eventTypes: EventTypes,
  secret: Type.String({
    minLength: WEBHOOK_SECRET_MIN,
    maxLength: 256,
    description: 'keys the Postern-Signature HMAC; write-only, never shown back',
  }),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  tags: Type.Optional(Tags),
});

export const WebhookDetail = Type.Object(
  {
    ...BaseEntity,
    // The serializer drops what the schema does not name: without this, no answer showed the name.
    name: Type.String(),
    url: Type.String(),
    eventTypes: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    pending: Type.Integer({ description: 'deliveries waiting (the first one retried or due)' }),
    dead: Type.Integer({ description: 'deliveries in the dead-letter list' }),
  },
  { title: 'webhookDetail' },
);

export const DeliveryState = Type.Union(['pending', 'delivered', 'dead'].map((s) => Type.Literal(s)));

export const WebhookDelivery = Type.Object(
  {
    id: Type.String(),
    webhookId: Type.String({ description: "the subscription's id, or 'syslog'" }),
    eventId: Type.String(),
    eventType: Type.String(),
    state: DeliveryState,
    attempts: Type.Integer(),
    lastError: Type.Union([Type.String(), Type.Null()]),
    nextAttemptAt: Type.Union([DateTime, Type.Null()], { description: 'pending only' }),
    createdAt: DateTime,
    deliveredAt: Type.Union([DateTime, Type.Null()]),
  },
  { title: 'webhookDelivery' },
);

export const DeliveryListQuerystring = Type.Object({
  state: Type.Optional(DeliveryState),
  webhookId: Type.Optional(Type.String({ maxLength: 255 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })),
});

export const SyslogStatus = Type.Object(
  {
    configured: Type.Boolean(),
    target: Type.Union([Type.String(), Type.Null()], { description: 'tcp://host:port or tls://host:port' }),
    connected: Type.Boolean(),
    pending: Type.Integer(),
    capacity: Type.Integer(),
    full: Type.Boolean({ description: 'true: new events are not exported to syslog until it drains' }),
    dropped: Type.Integer({ description: 'events not exported since start because the buffer was full' }),
    lastError: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'syslogStatus' },
);
