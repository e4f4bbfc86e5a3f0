/**
 * Counts failed attempts per key (a username, an identity, a source address) in a sliding window and
 * blocks a key that reaches the limit, for a back-off that doubles on every further block.
 * Shared by password logins, TOTP checks and enrollments. The counts live where its counters keep them
 * (platform/limits/limiter-store.ts): this process's memory by default, or the database that several controllers share,
 * so attempts spread over them count once. Hence every answer is a promise.
 */
import type { FailureCounters, LimitRule } from './limiter-store.js';
import { MemoryFailureCounters } from './memory-failure-counters.js';

export type { LimitRule } from './limiter-store.js';

export interface FailureLimiterOptions extends LimitRule {
  /** the controller's clock, read on every call (tests move it); by default the system's */
  now?: () => number;
}

export class FailureLimiter {
  private readonly now: () => number;

  constructor(
    options: FailureLimiterOptions,
    private readonly counters: FailureCounters = new MemoryFailureCounters(options),
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  async retryAfterMs(key: string): Promise<number> {
    const now = this.now();
    return Math.max(0, (await this.counters.blockedUntil(key)) - now);
  }

  /**
   * Holds a place for an attempt *before* it is checked, so a burst of parallel attempts gets no more tries
   * than the limit: answers false when the key is blocked or every remaining try is already held. Each
   * place is given back with `settle` once the attempt's outcome is known.
   */
  reserve(key: string): Promise<boolean> {
    return this.counters.reserve(key, this.now());
  }

  /** The reserved attempt's outcome: a failure counts, a success only gives the place back. */
  settle(key: string, failed: boolean): Promise<void> {
    return this.counters.settle(key, failed, this.now());
  }

  recordFailure(key: string): Promise<void> {
    return this.counters.recordFailure(key, this.now());
  }

  /** A success clears the key's failures and back-off. */
  recordSuccess(key: string): Promise<void> {
    return this.counters.clear(key);
  }
}
