/**
 * An `event_deliveries` row as either store reads it, and the delivery it holds. The queue's times are
 * milliseconds since the epoch on SQLite and timestamptz (a Date) on PostgreSQL; `seq` is a bigserial there,
 * which node-postgres answers as a string.
 */
import type { Delivery } from '../../event-delivery-model.js';

export interface DeliveryRow {
  seq: number | string;
  id: string;
  target: string;
  event_id: string;
  event_type: string;
  body: string;
  state: Delivery['state'];
  attempts: number;
  next_attempt_at: number | Date;
  last_error: string | null;
  created_at: string;
  delivered_at: number | Date | null;
}

export const deliveryOf = (r: DeliveryRow): Delivery => ({
  id: r.id,
  seq: Number(r.seq),
  target: r.target,
  eventId: r.event_id,
  eventType: r.event_type,
  body: r.body,
  state: r.state,
  attempts: r.attempts,
  nextAttemptAt: new Date(r.next_attempt_at),
  lastError: r.last_error,
  createdAt: new Date(r.created_at),
  deliveredAt: r.delivered_at === null ? null : new Date(r.delivered_at),
});
