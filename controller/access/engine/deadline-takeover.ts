/**
 * Enforces the posture deadlines of controller instances that stopped (PostgreSQL, several instances on one
 * database). Every instance, every TAKEOVER_INTERVAL_MS, claims the deadlines overdue by more than that
 * interval — their owner's exact timer should have fired them by then — and re-evaluates the identities they
 * concern, which revokes what expired and re-arms (and re-owns) what remains.
 *
 * Bound: a deadline becomes claimable TAKEOVER_INTERVAL_MS after it is due, and the next look comes at most
 * TAKEOVER_INTERVAL_MS later, so once its owner has died it is enforced at most about
 * 2 × TAKEOVER_INTERVAL_MS late (plus the evaluation itself; sooner when several instances look at different
 * moments). A claim keeps other instances off it for one interval; a claimer that dies before finishing loses
 * it to the next.
 */
import type { ControllerContext } from '../../platform/context.js';
import type { PostureEngine } from './posture-engine.js';
import { POSTURE_EXPIRY } from './persisted-deadlines.js';

// Short enough that a deadline whose owner died is still enforced within about a second (a warn deadline or an
// exception's end cuts tunnels that promptly on every instance); each look is one indexed query.
export const TAKEOVER_INTERVAL_MS = 400;

/** Deadlines claimed per statement; a full batch is followed by another claim at once. */
const CLAIM_BATCH = 200;

export interface DeadlineTakeover {
  /** Stops looking; resolves once a pass in progress has finished (before the store closes under it). */
  close(): Promise<void>;
}

export function startDeadlineTakeover(
  ctx: ControllerContext,
  engine: PostureEngine,
  intervalMs = TAKEOVER_INTERVAL_MS,
): DeadlineTakeover {
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;

  const pass = async () => {
    for (;;) {
      const claimed = await ctx.store.deadlines.claimOverdue(ctx.store.instanceId, intervalMs, CLAIM_BATCH);
      // Posture expiries are the only kind written so far; another kind would be a newer controller's.
      const apiSessionIds = claimed.filter((d) => d.kind === POSTURE_EXPIRY).map((d) => d.subject);
      if (apiSessionIds.length > 0) {
        ctx.log.info({ apiSessionIds }, 'taking over posture deadlines another instance did not fire');
        await engine.takeOver(apiSessionIds);
      }
      if (claimed.length < CLAIM_BATCH || closed) return;
    }
  };

  // A chain of timeouts rather than an interval: a slow pass (a large takeover) never overlaps the next.
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => {
      running = pass()
        .catch((err: unknown) => ctx.log.error({ err }, 'posture deadline takeover failed'))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, intervalMs);
    // The HTTP server keeps the controller alive; this must not keep a finished test or CLI alive.
    timer.unref();
  };
  schedule();

  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
