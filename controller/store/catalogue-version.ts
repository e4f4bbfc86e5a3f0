/**
 * A counter that moves whenever services, service policies or posture checks may have changed: what the
 * in-memory access catalogue (catalogue/catalogue.ts) is rebuilt on. Both backends move it on their own
 * writes to those kinds and on a rollback; a backend shared by several controllers also moves it when another
 * one announces a change.
 */
export class CatalogueVersion {
  private value = 0;

  get current(): number {
    return this.value;
  }

  bump(): void {
    this.value++;
  }

  /**
   * Makes the repository's writes move the version, before and after: a reader in between rebuilds from a
   * state the write may not have finished, and the move after makes the next reader rebuild again. Where
   * readers outside a transaction do not wait for it (PostgreSQL), `afterCommit` moves it once more when the
   * writing transaction commits: a reader in between read the state before it.
   */
  watchWrites(repo: object, afterCommit?: (fn: () => unknown) => boolean): void {
    const writable = repo as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of ['create', 'update', 'delete']) {
      const write = writable[name]!.bind(repo);
      writable[name] = async (...args: unknown[]) => {
        this.bump();
        try {
          return await write(...args);
        } finally {
          this.bump();
          afterCommit?.(() => this.bump());
        }
      };
    }
  }
}
