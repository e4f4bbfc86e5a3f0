/**
 * The embedded backend: one SQLite file in the data folder and one controller on it. Nothing is shared with
 * another instance because there is none: attempts are counted in memory, the outbox is delivered after this
 * process's own commits, and the start-up pass re-arms every posture deadline (no takeover).
 */
import { lockDataFolder } from '../store/data-folder.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { memoryLimiters } from '../platform/limits/memory-failure-counters.js';
import { AccessOutbox } from '../events/access-outbox.js';
import type { ControllerContext } from '../platform/context.js';
import type { LocalRouterLinks, Stoppable, StoreBackend } from './store-backend.js';

const nothingToStop: Stoppable = { close: () => undefined };

export class SqliteBackend implements StoreBackend {
  readonly shared = false;
  readonly limiters = memoryLimiters;

  private constructor(
    readonly store: SqliteStore,
    private readonly unlock: () => void,
  ) {}

  /** Takes the data folder for this process (store/data-folder.ts) and opens its database. */
  static open(dataDir: string): SqliteBackend {
    // One controller per SQLite file: two would each trust their own caches and grant what policy forbids.
    const unlock = lockDataFolder(dataDir);
    try {
      return new SqliteBackend(SqliteStore.open(dataDir), unlock);
    } catch (err) {
      unlock();
      throw err;
    }
  }

  startOutbox(ctx: ControllerContext): Promise<Stoppable> {
    return Promise.resolve(new AccessOutbox(this.store.db, ctx));
  }

  startDeadlineTakeover(): Stoppable {
    return nothingToStop;
  }

  routerPresence(local: LocalRouterLinks): LocalRouterLinks & Stoppable {
    return { isOnline: (id) => local.isOnline(id), all: () => local.all(), ...nothingToStop };
  }

  async close(): Promise<void> {
    try {
      await this.store.close();
      await this.limiters.close();
    } finally {
      this.unlock();
    }
  }
}
