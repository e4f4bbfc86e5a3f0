/**
 * Starts event delivery: the queue's delivery loop, the syslog export when configured, and the enqueuer the
 * audit trail calls (`ctx.eventDeliveries.enqueueDeliveries(event)`, inside the event's transaction).
 */
import { readFileSync } from 'node:fs';
import type { ControllerContext } from '../platform/context.js';
import { createDeliveryEnqueuer } from '../events/delivery/enqueue.js';
import { DEFAULT_DELIVERY_OPTIONS, EventDelivery } from '../events/delivery/event-delivery.js';
import { SyslogBuffer } from '../events/delivery/syslog-buffer.js';
import { SyslogSender, parseSyslogTarget } from '../events/delivery/syslog-sender.js';
import type { DeliveryParts } from './webhook-routes.js';

export function installEventDelivery(ctx: ControllerContext): DeliveryParts & { close(): Promise<void> } {
  const { config, store, log } = ctx;
  const options = { ...DEFAULT_DELIVERY_OPTIONS, ...config.eventDelivery };
  const sender = config.syslog
    ? new SyslogSender(
        parseSyslogTarget(config.syslog, config.syslogCa ? readFileSync(config.syslogCa, 'utf8') : undefined),
      )
    : undefined;
  const syslogBuffer = sender ? new SyslogBuffer(store, log, config.syslogBuffer) : undefined;
  const delivery = new EventDelivery(store, log, options, sender);
  ctx.eventDeliveries = createDeliveryEnqueuer(store, syslogBuffer, () => delivery.wake());
  delivery.start();
  return {
    delivery,
    syslogBuffer,
    syslogTarget: config.syslog,
    close: () => delivery.close(),
  };
}
