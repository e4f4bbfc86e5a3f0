/**
 * Runs what a transaction queued for after its commit (`Store.afterCommit`), for both stores: started in order
 * and together, so work that coalesces (one refresh for several policy changes) sees them all, and awaited as
 * a whole. A failure is its own: it must not turn a committed write into a failed request (the event bus logs
 * what its listeners throw).
 */
export async function runAfterCommit(work: readonly (() => unknown)[]): Promise<void> {
  const started = work.map((fn) => {
    try {
      return fn();
    } catch {
      return undefined;
    }
  });
  await Promise.allSettled(started);
}
