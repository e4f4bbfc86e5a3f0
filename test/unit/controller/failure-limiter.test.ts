import { describe, expect, it } from 'vitest';
import { FailureLimiter } from '../../../controller/auth/failure-limiter.js';

function limiter() {
  let now = 1_000_000;
  const l = new FailureLimiter({
    maxFailures: 3,
    windowMs: 60_000,
    baseBlockMs: 10_000,
    maxBlockMs: 40_000,
    now: () => now,
  });
  return { l, advance: (ms: number) => (now += ms) };
}

describe('FailureLimiter', () => {
  it('blocks a key once it reaches the limit inside the window, and only that key', () => {
    const { l } = limiter();
    l.recordFailure('a');
    l.recordFailure('a');
    expect(l.retryAfterMs('a')).toBe(0);
    l.recordFailure('a');
    expect(l.retryAfterMs('a')).toBe(10_000);
    expect(l.retryAfterMs('b')).toBe(0);
  });

  it('forgets failures older than the window', () => {
    const { l, advance } = limiter();
    l.recordFailure('a');
    l.recordFailure('a');
    advance(61_000);
    l.recordFailure('a');
    expect(l.retryAfterMs('a')).toBe(0);
  });

  it('doubles the block each time, up to the maximum, and a success resets it', () => {
    const { l, advance } = limiter();
    const block = () => {
      for (let i = 0; i < 3; i++) l.recordFailure('a');
      return l.retryAfterMs('a');
    };
    expect(block()).toBe(10_000);
    advance(10_000);
    expect(block()).toBe(20_000);
    advance(20_000);
    expect(block()).toBe(40_000);
    advance(40_000);
    expect(block()).toBe(40_000);
    l.recordSuccess('a');
    expect(l.retryAfterMs('a')).toBe(0);
    expect(block()).toBe(10_000);
  });
});
