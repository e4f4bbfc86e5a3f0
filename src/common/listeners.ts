/** A tiny typed event source: `on` returns the unsubscribe function, and a throwing listener hurts no other. */
export class Listeners<T> {
  private readonly listeners = new Set<(value: T) => void>();

  on(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch {
        // A faulty UI listener must not break the agent's own bookkeeping.
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
