/**
 * The one writer of the audit trail. An event is written in the transaction of what it records, so a change
 * that rolls back leaves no event and a committed one cannot lose its event; called outside a transaction
 * (a failed sign-in, which changes nothing else), it writes in one of its own. The same transaction queues
 * the event's webhook and syslog deliveries (events/delivery/enqueue.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Store } from '../store/repository.js';
import type { DeliveryEnqueuer } from '../event-delivery-model.js';
import type { AuditEvent, AuditRecord } from './audit-model.js';
import { auditEventToWire } from './audit-wire.js';

/** Where an event goes: the trail, and the webhooks and syslog export when the controller delivers events. */
export interface AuditSink {
  store: Store;
  eventDeliveries?: DeliveryEnqueuer;
}

/** Crockford's base32 without the letters people misread (I, L, O, U). */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `7K2Q-PX`: 30 random bits, short enough to read over the phone; the time of the event narrows it further. */
export function newReference(): string {
  const bytes = randomBytes(6);
  let code = '';
  for (const byte of bytes) code += ALPHABET[byte & 31];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

export async function recordAudit(sink: AuditSink, record: AuditRecord, at: Date): Promise<AuditEvent> {
  const { store, eventDeliveries } = sink;
  const id = randomUUID();
  const event: AuditEvent = {
    id,
    name: id,
    createdAt: at,
    updatedAt: at,
    tags: {},
    type: record.type,
    actor: record.actor ?? null,
    actorId: record.actor?.id ?? null,
    address: record.address ?? null,
    identityId: record.identityId ?? null,
    serviceId: record.serviceId ?? null,
    reference: newReference(),
    details: record.details ?? {},
  };
  // Its deliveries are queued in the same transaction: they commit, or roll back, with the event.
  const write = async () => {
    await store.auditEvents.create(event);
    await eventDeliveries?.enqueueDeliveries(auditEventToWire(event));
  };
  if (store.inTransaction()) await write();
  else await store.transaction(write);
  return event;
}
