/**
 * Counts failed attempts per key (a username, an identity, a source address) in a sliding window and
 * blocks a key that reaches the limit, for a back-off that doubles on every further block.
 * Shared by password logins and TOTP checks. In memory: a restart forgets, which only helps the next
 * legitimate user; the window is short enough that this is no real gift to an attacker.
 */
export interface FailureLimiterOptions {
  maxFailures: number;
  windowMs: number;
  baseBlockMs: number;
  maxBlockMs: number;
  now?: () => number;
}

interface KeyState {
  failures: number[];
  blockedUntil: number;
  blocks: number;
  /** attempts reserved and not yet settled */
  pending: number;
}

export class FailureLimiter {
  private readonly keys = new Map<string, KeyState>();
  private readonly now: () => number;

  constructor(private readonly options: FailureLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfterMs(key: string): number {
    const state = this.keys.get(key);
    if (!state) return 0;
    return Math.max(0, state.blockedUntil - this.now());
  }

  /**
   * Holds a place for an attempt *before* it is checked, so a burst of parallel attempts gets no more tries
   * than the limit: answers false when the key is blocked or every remaining try is already held. Each
   * place is given back with `settle` once the attempt's outcome is known.
   */
  reserve(key: string): boolean {
    if (this.retryAfterMs(key) > 0) return false;
    const now = this.now();
    const state = this.keys.get(key) ?? { failures: [], blockedUntil: 0, blocks: 0, pending: 0 };
    state.failures = state.failures.filter((t) => now - t < this.options.windowMs);
    if (state.failures.length + state.pending >= this.options.maxFailures) return false;
    state.pending++;
    this.keys.set(key, state);
    return true;
  }

  /** The reserved attempt's outcome: a failure counts, a success only gives the place back. */
  settle(key: string, failed: boolean): void {
    const state = this.keys.get(key);
    if (state) state.pending = Math.max(0, state.pending - 1);
    if (failed) this.recordFailure(key);
  }

  recordFailure(key: string): void {
    const now = this.now();
    const state = this.keys.get(key) ?? { failures: [], blockedUntil: 0, blocks: 0, pending: 0 };
    state.failures = state.failures.filter((t) => now - t < this.options.windowMs);
    state.failures.push(now);
    if (state.failures.length >= this.options.maxFailures) {
      const block = Math.min(this.options.baseBlockMs * 2 ** state.blocks, this.options.maxBlockMs);
      state.blockedUntil = now + block;
      state.blocks++;
      state.failures = [];
    }
    this.keys.set(key, state);
    this.prune(now);
  }

  /** A success clears the key's failures and back-off. */
  recordSuccess(key: string): void {
    this.keys.delete(key);
  }

  private prune(now: number): void {
    if (this.keys.size < 10_000) return;
    for (const [key, state] of this.keys) {
      if (
        state.pending === 0 &&
        state.blockedUntil < now &&
        state.failures.every((t) => now - t >= this.options.windowMs)
      )
        this.keys.delete(key);
    }
  }
}
