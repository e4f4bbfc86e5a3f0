/**
 * A bound on expensive work anyone may trigger (password hashing for logins): at most `concurrency` run,
 * at most `maxQueued` wait, and beyond that the caller is told to come back (GateFull, answered 429 with
 * Retry-After) instead of queueing without end. An anonymous flood then costs a bounded amount of CPU and
 * memory, and a legitimate login waits at most a short queue.
 */
export class GateFull extends Error {
  constructor() {
    super('too much work queued');
  }
}

export class WorkGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxQueued: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else {
      if (this.waiting.length >= this.maxQueued) throw new GateFull();
      // The slot is handed over by the finishing task (running stays the same), so none can slip in between.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}
