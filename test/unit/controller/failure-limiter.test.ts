import { describe, expect, it } from 'vitest';
import { FailureLimiter } from '../../../controller/platform/limits/failure-limiter.js';

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
  it('blocks a key once it reaches the limit inside the window, and only that key', async () => {
    const { l } = limiter();
    await l.recordFailure('a');
    await l.recordFailure('a');
    expect(await l.retryAfterMs('a')).toBe(0);
    await l.recordFailure('a');
    expect(await l.retryAfterMs('a')).toBe(10_000);
    expect(await l.retryAfterMs('b')).toBe(0);
  });

  it('forgets failures older than the window', async () => {
    const { l, advance } = limiter();
    await l.recordFailure('a');
    await l.recordFailure('a');
    advance(61_000);
    await l.recordFailure('a');
    expect(await l.retryAfterMs('a')).toBe(0);
  });

  it('doubles the block each time, up to the maximum, and a success resets it', async () => {
    const { l, advance } = limiter();
    const block = async () => {
      for (let i = 0; i < 3; i++) await l.recordFailure('a');
      return l.retryAfterMs('a');
    };
    expect(await block()).toBe(10_000);
    advance(10_000);
    expect(await block()).toBe(20_000);
    advance(20_000);
    expect(await block()).toBe(40_000);
    advance(40_000);
    expect(await block()).toBe(40_000);
    await l.recordSuccess('a');
    expect(await l.retryAfterMs('a')).toBe(0);
    expect(await block()).toBe(10_000);
  });
});
