/**
 * One log line per burst of refusals, not one per request: the first refusal of a kind is logged at once,
 * later ones are counted and reported with the next refusal a minute or more later. A flood of refused
 * requests then costs the log a line a minute, and the operator still learns that a cap is being hit.
 */
import type { Logger } from 'pino';

const QUIET_MS = 60_000;

export class RefusalLog {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly log: Pick<Logger, 'warn'>,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** `kind` groups refusals (one line per kind per minute); `facts` are logged with it (never secrets). */
  refused(kind: string, message: string, facts: Record<string, unknown> = {}): void {
    const at = this.now();
    const seen = this.last.get(kind);
    if (seen && at - seen.at < QUIET_MS) {
      seen.suppressed++;
      return;
    }
    this.last.set(kind, { at, suppressed: 0 });
    this.log.warn({ refusal: kind, ...facts, alsoRefusedInTheLastMinute: seen?.suppressed ?? 0 }, message);
  }
}
