/**
 * Exact-moment timers for posture results that change by themselves (MFA timeouts, wake/unlock grace ends).
 *
 * Each key (an API session id) has at most one due time. All of them sit in one min-heap driven by a single
 * `setTimeout` armed for the earliest, so thousands of sessions cost one timer, and nothing polls: when the
 * earliest moment arrives the due keys are handed to `onDue`, which re-evaluates them and sets their next times.
 * Replaced times are left in the heap and skipped when they surface (lazy deletion), with a rebuild when
 * stale entries outnumber live ones.
 */
import type { Clock } from '../../platform/context.js';
import { MinHeap } from './min-heap.js';

interface Entry {
  at: number;
  key: string;
}

/** setTimeout's ceiling (about 24.8 days); a later moment is reached by re-arming. */
const MAX_DELAY_MS = 2_147_483_647;

export class ExpiryTimers {
  private readonly due = new Map<string, number>();
  private readonly heap = new MinHeap<Entry>((a, b) => a.at < b.at);
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedFor = Number.POSITIVE_INFINITY;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (keys: string[]) => void,
  ) {}

  /** Sets (or with null clears) the moment `key` is next due. */
  set(key: string, at: Date | null): void {
    if (this.closed) return;
    if (at === null) {
      if (!this.due.delete(key)) return;
    } else {
      const ms = at.getTime();
      if (this.due.get(key) === ms) return;
      this.due.set(key, ms);
      this.heap.push({ at: ms, key });
    }
    if (this.heap.size > 2 * this.due.size + 64) {
      this.heap.reset([...this.due].map(([k, ms]) => ({ at: ms, key: k })));
    }
    this.arm();
  }

  delete(key: string): void {
    this.set(key, null);
  }

  /** When `key` is next due, if it is. */
  dueAt(key: string): Date | undefined {
    const ms = this.due.get(key);
    return ms === undefined ? undefined : new Date(ms);
  }

  get size(): number {
    return this.due.size;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
    this.heap.reset([]);
  }

  private isLive(entry: Entry): boolean {
    return this.due.get(entry.key) === entry.at;
  }

  private arm(): void {
    while (this.heap.peek() && !this.isLive(this.heap.peek()!)) this.heap.pop();
    const next = this.heap.peek();
    if (next && next.at === this.armedFor && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    if (!next || this.closed) return;
    const delay = Math.min(Math.max(0, next.at - this.clock.now().getTime()), MAX_DELAY_MS);
    this.armedFor = next.at;
    this.timer = setTimeout(() => this.fire(), delay);
    // The HTTP server keeps the controller alive; a pending expiry must not keep a finished test or CLI alive.
    this.timer.unref?.();
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Number.POSITIVE_INFINITY;
    // A timer may fire a little before the wall clock reaches the moment; then nothing is due and it re-arms.
    const now = this.clock.now().getTime();
    const keys: string[] = [];
    for (let top = this.heap.peek(); top && top.at <= now; top = this.heap.peek()) {
      this.heap.pop();
      if (this.isLive(top)) {
        this.due.delete(top.key);
        keys.push(top.key);
      }
    }
    try {
      if (keys.length > 0) this.onDue(keys);
    } finally {
      this.arm();
    }
  }
}
