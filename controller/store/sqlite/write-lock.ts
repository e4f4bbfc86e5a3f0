/**
 * One holder at a time, served in arrival order. SQLite has one connection here: while a transaction is open
 * across awaits, nobody else may read or write through it (they would see, or land inside, its uncommitted
 * writes), so the transaction holds this lock and every other store call waits for it.
 */
export class WriteLock {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  get isHeld(): boolean {
    return this.holders > 0;
  }

  /** Resolves with the release function once every earlier holder has released. */
  async acquire(): Promise<() => void> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    this.holders++;
    await previous;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      release();
    };
  }
}
