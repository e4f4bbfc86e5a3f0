/**
 * Delivers the durable queue (store/delivery-repository.ts): claims each target's oldest due delivery under a
 * lease, POSTs it to its webhook or writes it to syslog, and records the outcome: delivered, or failed with the
 * error and the next attempt after a backoff that doubles up to a cap, dead-lettered after `maxAttempts`
 * (webhooks; syslog retries until it is back, its buffer bounded instead). Every instance sharing a PostgreSQL
 * database runs one: the claims' row locks and leases give each delivery to one of them, and a delivery whose
 * claimer died is claimed again once its lease ends (a restart included).
 */
import type { Logger } from 'pino';
import type { Store } from '../../store/repository.js';
import { SYSLOG_TARGET, type Delivery } from '../../event-delivery-model.js';
import { postWebhook, POST_TIMEOUT_MS } from './webhook-post.js';
import { syslogMessage, type SyslogSender } from './syslog-sender.js';

export interface DeliveryOptions {
  /** how often the queue is read when nothing woke it */
  pollMs: number;
  /** the first retry's wait, doubled per failed attempt up to retryMaxMs */
  retryMinMs: number;
  retryMaxMs: number;
  /** a webhook delivery failing this many times goes to the dead-letter list */
  maxAttempts: number;
  /** deliveries claimed per pass (each a different target) */
  batch: number;
  /** delivered rows are kept this long (the deliveries list), then pruned */
  keepDeliveredMs: number;
}

export const DEFAULT_DELIVERY_OPTIONS: DeliveryOptions = {
  pollMs: 1_000,
  retryMinMs: 1_000,
  retryMaxMs: 5 * 60_000,
  maxAttempts: 15,
  batch: 32,
  keepDeliveredMs: 7 * 24 * 3600_000,
};

/** A claim outlives the longest attempt (the POST's own bound) with room to record the outcome. */
const LEASE_MS = POST_TIMEOUT_MS * 3;
/** A disabled subscription's deliveries wait; they are looked at again after this long. */
const DISABLED_RECHECK_MS = 30_000;
const PRUNE_EVERY_MS = 3600_000;

export function retryDelay(attempts: number, o: Pick<DeliveryOptions, 'retryMinMs' | 'retryMaxMs'>): number {
  return Math.min(o.retryMaxMs, o.retryMinMs * 2 ** Math.max(0, attempts - 1));
}

export class EventDelivery {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private lastPrune = 0;
  /** targets this instance is delivering to now: not claimed again until done */
  private readonly busy = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly options: DeliveryOptions,
    readonly syslog: SyslogSender | undefined,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Asks for a pass (after an enqueue commits); one runs at a time. */
  wake(): void {
    if (this.closed) return;
    this.again = true;
    this.running ??= this.loop().finally(() => (this.running = undefined));
  }

  /** Runs passes until nothing is due now; for tests and shutdown. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.idle();
    this.syslog?.close();
  }

  private async loop(): Promise<void> {
    while (this.again && !this.closed) {
      this.again = false;
      try {
        const claimed = await this.store.deliveries.claim(
          this.store.instanceId,
          LEASE_MS,
          this.options.batch,
          [...this.busy],
        );
        // Each claimed row is a different target's head: they go in parallel, each target in order.
        await Promise.all(claimed.map((d) => this.attempt(d)));
        // A full batch may have left more due: read again at once.
        if (claimed.length > 0) this.again = true;
        await this.pruneNowAndThen();
      } catch (err) {
        this.log.warn({ err }, 'reading the event delivery queue failed; retrying');
      }
    }
  }

  private async attempt(d: Delivery): Promise<void> {
    this.busy.add(d.target);
    const owner = this.store.instanceId;
    try {
      if (d.target === SYSLOG_TARGET) return await this.toSyslog(d);
      const hook = await this.store.webhooks.get(d.target);
      if (!hook)
        return void (await this.store.deliveries.failed(d.id, owner, 'subscription deleted', 0, true));
      if (!hook.enabled) return await this.store.deliveries.release(d.id, owner, DISABLED_RECHECK_MS);
      try {
        await postWebhook(hook.url, hook.secret, d.body);
      } catch (err) {
        const attempts = d.attempts + 1;
        const dead = attempts >= this.options.maxAttempts;
        const error = (err as Error).message.slice(0, 500);
        await this.store.deliveries.failed(d.id, owner, error, retryDelay(attempts, this.options), dead);
        // The URL may hold a token in its path or query: the subscription's id names it instead.
        this.log.warn(
          { webhookId: hook.id, deliveryId: d.id, attempts, dead, error },
          dead ? 'a webhook delivery was dead-lettered' : 'a webhook delivery failed; retrying',
        );
        return;
      }
      await this.store.deliveries.delivered(d.id, owner);
    } catch (err) {
      // Recording the outcome failed (the database): the lease ends and the delivery is claimed again.
      this.log.warn({ err, deliveryId: d.id }, 'recording a delivery failed; it will be attempted again');
    } finally {
      this.busy.delete(d.target);
    }
  }

  private async toSyslog(d: Delivery): Promise<void> {
    const owner = this.store.instanceId;
    if (!this.syslog) return this.store.deliveries.release(d.id, owner, DISABLED_RECHECK_MS);
    try {
      await this.syslog.send(syslogMessage(d.body, d.eventType, d.createdAt));
    } catch (err) {
      const attempts = d.attempts + 1;
      // Never dead-lettered: the buffer's bound (syslog-buffer.ts) is what limits a long outage.
      await this.store.deliveries.failed(
        d.id,
        owner,
        (err as Error).message,
        retryDelay(attempts, this.options),
        false,
      );
      if (attempts === 1 || attempts % 10 === 0)
        this.log.warn({ err, attempts }, 'the syslog receiver is unreachable; reconnecting with backoff');
      return;
    }
    await this.store.deliveries.delivered(d.id, owner);
  }

  private async pruneNowAndThen(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.store.deliveries.pruneDelivered(this.options.keepDeliveredMs);
  }
}
