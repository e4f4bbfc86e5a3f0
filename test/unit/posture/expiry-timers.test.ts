import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExpiryTimers } from '../../../controller/access/engine/expiry-timers.js';
import { MinHeap } from '../../../controller/access/engine/min-heap.js';
import { systemClock } from '../../../controller/platform/context.js';

describe('MinHeap', () => {
  it('pops in order whatever the pushes', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), (values) => {
        const heap = new MinHeap<number>((a, b) => a < b);
        values.forEach((v) => heap.push(v));
        const out: number[] = [];
        while (heap.size > 0) out.push(heap.pop()!);
        expect(out).toEqual([...values].sort((a, b) => a - b));
      }),
    );
  });
});

describe('ExpiryTimers', () => {
  const T0 = Date.parse('2025-01-01T00:00:00.000Z');
  let fired: string[][];
  let timers: ExpiryTimers;

  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
    fired = [];
    timers = new ExpiryTimers(systemClock, (keys) => fired.push([...keys].sort()));
  });
  afterEach(() => {
    timers.close();
    vi.useRealTimers();
  });

  it('fires each key at its exact moment, due keys together, with one timer armed', () => {
    timers.set('b', new Date(T0 + 2000));
    timers.set('a', new Date(T0 + 1000));
    timers.set('c', new Date(T0 + 2000));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([['a']]);
    vi.advanceTimersByTime(1000);
    expect(fired).toEqual([['a'], ['b', 'c']]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('moves or clears a key, and never fires a replaced time', () => {
    timers.set('a', new Date(T0 + 1000));
    timers.set('a', new Date(T0 + 5000));
    timers.set('b', new Date(T0 + 3000));
    timers.delete('b');
    vi.advanceTimersByTime(4999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([['a']]);
    expect(timers.size).toBe(0);
  });

  it('reaches a moment beyond setTimeout’s range by re-arming', () => {
    const far = T0 + 40 * 24 * 3600 * 1000;
    timers.set('far', new Date(far));
    vi.advanceTimersByTime(2_147_483_647);
    expect(fired).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(far - T0 - 2_147_483_647 - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([['far']]);
  });

  it('re-arms instead of firing when the timer runs before the clock reaches the moment', () => {
    timers.set('a', new Date(T0 + 1000));
    vi.setSystemTime(T0 - 500); // the wall clock stepped back after the timer was armed
    vi.advanceTimersByTime(1000);
    expect(Date.now()).toBe(T0 + 500);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([['a']]);
  });

  it('fires at once for a moment already past, and keeps stale entries bounded', () => {
    for (let i = 0; i < 1000; i++) timers.set('a', new Date(T0 + 10_000 + i));
    timers.set('past', new Date(T0 - 1));
    vi.advanceTimersByTime(0);
    expect(fired).toEqual([['past']]);
    expect(timers.dueAt('a')?.getTime()).toBe(T0 + 10_999);
    vi.advanceTimersByTime(11_000);
    expect(fired).toEqual([['past'], ['a']]);
  });
});
