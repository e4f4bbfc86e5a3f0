/**
 * Webhook subscriptions and their deliveries as the management API answers them (src/api/resources/webhooks.ts),
 * and the event types a subscription can tick.
 */
import type { BaseEntity } from '../../../../src/api/envelopes.js';
import { AUDIT_EVENT_TYPES } from '../../../../src/api/audit-event-types.js';

/** The trail's event types a subscription can tick (one list: src/api/audit-event-types.ts). */
export const EVENT_TYPES: readonly string[] = AUDIT_EVENT_TYPES;

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
