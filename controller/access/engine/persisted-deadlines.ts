/**
 * Each API session's next posture change moment (what expiry-timers.ts fires in memory) also written to the
 * store's deadlines, owned by this instance, so that another controller sharing the database enforces it if
 * this one stops first (deadline-takeover.ts). The in-memory timers stay the exact mechanism.
 *
 * A row is written only when the moment changes: what this instance last wrote is remembered, so the many
 * evaluations that leave an API session's moment as it was cost no write.
 */
import type { ControllerContext } from '../../platform/context.js';

/** The deadline kind of an API session's posture expiry; its subject is the API session id. */
export const POSTURE_EXPIRY = 'posture-expiry';

const deadlineId = (apiSessionId: string) => `${POSTURE_EXPIRY}:${apiSessionId}`;

/** A row this instance claimed: whatever the next evaluation finds differs from it, and is written. */
const CLAIMED = Symbol('claimed');

export class PersistedDeadlines {
  /** API session → the due time (ctx.clock milliseconds) of the row this instance last wrote; absent: none */
  private readonly written = new Map<string, number | typeof CLAIMED>();

  constructor(private readonly ctx: ControllerContext) {}

  /** Inside the evaluation's transaction: the API session's row becomes `at`, or goes when null. */
  async record(apiSessionId: string, at: Date | null): Promise<void> {
    const ms = at?.getTime();
    if (this.written.get(apiSessionId) === ms) return;
    const { store, clock } = this.ctx;
    if (ms === undefined) await store.deadlines.delete(deadlineId(apiSessionId));
    else
      await store.deadlines.set(
        deadlineId(apiSessionId),
        POSTURE_EXPIRY,
        apiSessionId,
        // Relative: the database turns it into a time on its own clock (ours may differ, or be a test's).
        ms - clock.now().getTime(),
        store.instanceId,
      );
    // Remembered once committed: after a rollback the row is as before, and the next evaluation writes again.
    this.afterCommit(() => {
      if (ms === undefined) this.written.delete(apiSessionId);
      else this.written.set(apiSessionId, ms);
    });
  }

  /** The API session ended: its row goes (inside the caller's transaction, if any). */
  async forget(apiSessionId: string): Promise<void> {
    await this.ctx.store.deadlines.delete(deadlineId(apiSessionId));
    this.afterCommit(() => this.written.delete(apiSessionId));
  }

  /** This instance claimed the API session's row; the evaluation that follows re-writes (or deletes) it. */
  claimed(apiSessionId: string): void {
    this.written.set(apiSessionId, CLAIMED);
  }

  close(): void {
    this.written.clear();
  }

  private afterCommit(fn: () => void): void {
    if (!this.ctx.store.afterCommit(fn)) fn();
  }
}
