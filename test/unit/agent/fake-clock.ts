import type { Clock, TimerHandle } from '../../../src/common/clock.js';

interface Timer {
  at: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock tests move by hand; timers fire in order as `advance` passes them, with promises settling between. */
export class FakeClock implements Clock {
  private timers: Timer[] = [];

  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.current + Math.max(0, ms), fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward, firing every timer due on the way (and any they set that fall inside). */
  async advance(ms: number): Promise<void> {
    const end = this.current + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => !t.cancelled && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.current = Math.max(this.current, due.at);
      due.cancelled = true;
      due.fn();
    }
    this.current = end;
    await settle();
  }
}

/** Lets pending promise chains run to completion. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
