/**
 * What event delivery works on: the audit event it carries (the shape of GET /audit-events' items), a webhook
 * subscription, and one queued delivery of one event to one target (a webhook, or the syslog export).
 */
import type { Entity } from './model.js';

/** An audit event as the trail records it and as it is delivered (the JSON body, the syslog MSG). */
export interface AuditEvent {
  id: string;
  type: string;
  /** ISO 8601 */
  createdAt: string;
  actor: unknown;
  identityId?: string | null;
  serviceId?: string | null;
  reference: string;
  details: unknown;
}

/** A webhook subscription. `secret` keys the signature; it is never shown back nor logged. */
export interface Webhook extends Entity {
  url: string;
  /** the event types delivered; `['*']` is every type (an empty list is refused: it would deliver nothing) */
  eventTypes: string[];
  secret: string;
  enabled: boolean;
}

/** The target name of the syslog export in the delivery queue (webhooks' targets are their ids). */
export const SYSLOG_TARGET = 'syslog';

export type DeliveryState = 'pending' | 'delivered' | 'dead';

/** One event's delivery to one target, as the queue keeps it. */
export interface Delivery {
  id: string;
  /** the queue's order: per target, a delivery goes only after every earlier one went or died */
  seq: number;
  target: string;
  eventId: string;
  eventType: string;
  /** the exact JSON body sent (and signed) */
  body: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A delivery to queue: the event's JSON, once per target. */
export interface NewDelivery {
  id: string;
  target: string;
  eventId: string;
  eventType: string;
  body: string;
  createdAt: Date;
}

/** Whether a subscription takes events of this type. */
export const subscribes = (webhook: Pick<Webhook, 'eventTypes' | 'enabled'>, type: string): boolean =>
  webhook.enabled && (webhook.eventTypes.includes('*') || webhook.eventTypes.includes(type));

/** What the audit writer calls, inside the transaction that writes the event (events/delivery/enqueue.ts). */
export interface DeliveryEnqueuer {
  enqueueDeliveries(event: AuditEvent): Promise<void>;
}
