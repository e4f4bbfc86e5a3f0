/**
 * Where attempt limiters keep their counts. One controller alone keeps them in memory (memory-failure-counters.ts);
 * controllers sharing a PostgreSQL database keep them there (platform/limits/pg-limiter-store.ts), so spreading
 * attempts over several controllers does not multiply the allowance.
 *
 * The counters are told the time on every call rather than reading a clock: the controller's clock
 * (`ctx.clock`), which tests move to jump past windows and blocks, is the one every backend compares with.
 */

/** How many failures a key may have in a sliding window, and how long it is blocked when it reaches them. */
export interface LimitRule {
  maxFailures: number;
  windowMs: number;
  /** the first block; each further block doubles it, up to maxBlockMs */
  baseBlockMs: number;
  maxBlockMs: number;
}

/** The keys of one limiter (a username, an address, an account-and-address pair), all under one rule. */
export interface FailureCounters {
  /**
   * Holds a place for an attempt at `now` before it is judged: false when the key is blocked, or when its
   * failures in the window and the places already held reach the limit. Atomic per key.
   */
  reserve(key: string, now: number): Promise<boolean>;
  /** Gives a held place back; `failed` also counts a failure at `now`, which may start a block. */
  settle(key: string, failed: boolean, now: number): Promise<void>;
  /** Counts a failure at `now` without a held place. */
  recordFailure(key: string, now: number): Promise<void>;
  /** Forgets the key: its failures, its back-off, its held places. */
  clear(key: string): Promise<void>;
  /** When the key's latest block ends (epoch milliseconds); 0 when it was never blocked. */
  blockedUntil(key: string): Promise<number>;
}

export interface LimiterStore {
  /**
   * The counters of the limiter called `name` under `rule`. Create each limiter once: in memory every call
   * answers counters of their own; in a shared store, one name is one set of keys for every controller.
   */
  counters(name: string, rule: LimitRule): FailureCounters;
  close(): Promise<void>;
}
