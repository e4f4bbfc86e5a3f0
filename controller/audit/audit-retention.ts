/**
 * Retention of the audit trail by age (docs/AUDIT.md): events older than the configured number of days go,
 * checked at start-up and then every hour. Events are deleted a page at a time, each in its own short
 * statement, with the event loop given back between pages, so a prune never holds a lock or a request for
 * long whatever its size. Deleting is idempotent: instances sharing a PostgreSQL database may prune at the same
 * time, and the loser of a race deletes nothing.
 */
import type { ControllerContext } from '../platform/context.js';

/** The longest retention `--audit-retention-days` accepts: ten years. */
export const MAX_AUDIT_RETENTION_DAYS = 3650;
const PRUNE_INTERVAL_MS = 60 * 60_000;
const PAGE = 500;
const DAY_MS = 24 * 3600_000;

const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Deletes the events older than `days` before the controller's clock; returns how many went. */
export async function pruneAuditTrail(ctx: ControllerContext, days: number): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - days * DAY_MS).toISOString();
  let pruned = 0;
  for (;;) {
    const page = await ctx.store.auditEvents.list({
      limit: PAGE,
      offset: 0,
      filter: `createdAt < datetime(${cutoff}) sort by createdAt asc limit ${PAGE}`,
    });
    for (const event of page.items) if (await ctx.store.auditEvents.delete(event.id)) pruned++;
    if (page.items.length < PAGE) return pruned;
    await yieldToOthers();
  }
}

export interface AuditRetention {
  close(): void;
}

export function startAuditRetention(ctx: ControllerContext, days: number): AuditRetention {
  let running: Promise<void> | undefined;
  const prune = () => {
    running ??= pruneAuditTrail(ctx, days)
      .then((pruned) => {
        if (pruned > 0) ctx.log.info({ pruned, days }, 'audit events past their retention deleted');
      })
      .catch((err: unknown) => ctx.log.error({ err }, 'audit retention prune failed'))
      .finally(() => (running = undefined));
  };
  const first = setTimeout(prune, 10_000);
  const timer = setInterval(prune, PRUNE_INTERVAL_MS);
  first.unref();
  timer.unref();
  return {
    close() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
