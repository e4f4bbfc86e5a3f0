/**
 * Attempt counters in this process's memory: what a controller alone (on SQLite) uses. A restart forgets,
 * which only helps the next legitimate user; the window is short enough that this is no real gift to an
 * attacker. Each method does its work before it returns its promise, so a check and its update are never
 * split by another caller.
 */
import type { FailureCounters, LimitRule, LimiterStore } from './limiter-store.js';

interface KeyState {
  failures: number[];
  blockedUntil: number;
  blocks: number;
  /** attempts reserved and not yet settled */
  pending: number;
}

/** Beyond this many keys, keys with nothing left to remember are dropped on the next failure. */
const PRUNE_ABOVE = 10_000;

export class MemoryFailureCounters implements FailureCounters {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly rule: LimitRule) {}

  reserve(key: string, now: number): Promise<boolean> {
    return Promise.resolve(this.reserveNow(key, now));
  }

  settle(key: string, failed: boolean, now: number): Promise<void> {
    const state = this.keys.get(key);
    if (state) state.pending = Math.max(0, state.pending - 1);
    if (failed) this.failNow(key, now);
    return Promise.resolve();
  }

  recordFailure(key: string, now: number): Promise<void> {
    this.failNow(key, now);
    return Promise.resolve();
  }

  clear(key: string): Promise<void> {
    this.keys.delete(key);
    return Promise.resolve();
  }

  blockedUntil(key: string): Promise<number> {
    return Promise.resolve(this.keys.get(key)?.blockedUntil ?? 0);
  }

  private reserveNow(key: string, now: number): boolean {
    const state = this.keys.get(key) ?? { failures: [], blockedUntil: 0, blocks: 0, pending: 0 };
    if (state.blockedUntil > now) return false;
    state.failures = state.failures.filter((t) => now - t < this.rule.windowMs);
    if (state.failures.length + state.pending >= this.rule.maxFailures) return false;
    state.pending++;
    this.keys.set(key, state);
    return true;
  }

  private failNow(key: string, now: number): void {
    const state = this.keys.get(key) ?? { failures: [], blockedUntil: 0, blocks: 0, pending: 0 };
    state.failures = state.failures.filter((t) => now - t < this.rule.windowMs);
    state.failures.push(now);
    if (state.failures.length >= this.rule.maxFailures) {
      state.blockedUntil = now + Math.min(this.rule.baseBlockMs * 2 ** state.blocks, this.rule.maxBlockMs);
      state.blocks++;
      state.failures = [];
    }
    this.keys.set(key, state);
    this.prune(now);
  }

  private prune(now: number): void {
    if (this.keys.size < PRUNE_ABOVE) return;
    for (const [key, state] of this.keys) {
      if (
        state.pending === 0 &&
        state.blockedUntil < now &&
        state.failures.every((t) => now - t >= this.rule.windowMs)
      )
        this.keys.delete(key);
    }
  }
}

/** Counters of their own for every limiter: one controller's memory. */
export const memoryLimiters: LimiterStore = {
  counters: (_name, rule) => new MemoryFailureCounters(rule),
  close: () => Promise.resolve(),
};
