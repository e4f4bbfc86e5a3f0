/** Refusals a client can repeat at will are logged, but cannot flood the log: one line per interval. */
const LOG_INTERVAL_MS = 10_000;

export class LogThrottle {
  private loggedAt = -Infinity;
  private since = 0;

  /** Counts one; returns how many there were since the last line when one is due now, else undefined. */
  count(): number | undefined {
    this.since++;
    if (Date.now() - this.loggedAt < LOG_INTERVAL_MS) return undefined;
    const since = this.since;
    this.loggedAt = Date.now();
    this.since = 0;
    return since;
  }
}
