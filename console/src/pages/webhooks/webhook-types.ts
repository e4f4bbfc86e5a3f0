/**
 * Webhook subscriptions and their deliveries as the management API answers them (src/api/resources/webhooks.ts),
 * and the event types a subscription can tick.
 */
import type { BaseEntity } from '../../../../src/api/envelopes.js';

/**
 * The trail's event types (controller/audit/audit-model.ts AUDIT_EVENT_TYPES, which the console may not
 * import); test/unit/console/console-event-types.test.ts fails when the two differ. A subscription naming a type not
 * listed here keeps it (the form shows it ticked).
 */
export const EVENT_TYPES: readonly string[] = [
  'admin.created',
  'admin.updated',
  'admin.deleted',
  'auth.signed-in',
  'auth.sign-in-failed',
  'access.refused',
  'access.granted',
];

export interface Webhook extends BaseEntity {
  name: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  pending: number;
  dead: number;
}

export interface WebhookDelivery {
  id: string;
  /** a subscription's id, or `syslog` */
  webhookId: string;
  eventId: string;
  eventType: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface SyslogStatus {
  configured: boolean;
  target: string | null;
  connected: boolean;
  pending: number;
  capacity: number;
  full: boolean;
  dropped: number;
  lastError: string | null;
}
