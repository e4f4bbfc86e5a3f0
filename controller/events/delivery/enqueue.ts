/**
 * The one entry point of event delivery: called with an audit event INSIDE the transaction that writes the
 * event's row, it queues one delivery per subscribed webhook (and one for the syslog export when configured),
 * so the deliveries commit, or roll back, with the event.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/repository.js';
import {
  SYSLOG_TARGET,
  subscribes,
  type DeliveryEnqueuer,
  type NewDelivery,
} from '../../event-delivery-model.js';
import type { SyslogBuffer } from './syslog-buffer.js';

/** More subscriptions than this are refused at create (each event is one row per subscription). */
export const MAX_WEBHOOKS = 100;

/** `wake`: asks the delivery loop for a pass, called once the event's transaction has committed. */
export function createDeliveryEnqueuer(
  store: Store,
  syslog: SyslogBuffer | undefined,
  wake: () => void,
): DeliveryEnqueuer {
  return {
    async enqueueDeliveries(event) {
      const body = JSON.stringify(event);
      const createdAt = new Date(event.createdAt);
      const row = (target: string): NewDelivery => ({
        id: randomUUID(),
        target,
        eventId: event.id,
        eventType: event.type,
        body,
        createdAt,
      });
      const hooks = await store.webhooks.list({ limit: MAX_WEBHOOKS, offset: 0 });
      const rows = hooks.items.filter((w) => subscribes(w, event.type)).map((w) => row(w.id));
      if (syslog && (await syslog.admit())) rows.push(row(SYSLOG_TARGET));
      if (rows.length === 0) return;
      await store.deliveries.enqueue(rows);
      // Outside a transaction (a caller that has none) the rows are already committed.
      if (!store.afterCommit(wake)) wake();
    },
  };
}
