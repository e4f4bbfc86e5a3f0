/**
 * The shared backend: a PostgreSQL database several controller instances use at once. What one instance
 * does, the others must see before they decide: attempts are counted in the database, the access outbox is
 * delivered whichever instance committed (LISTEN/NOTIFY, with the caches' and catalogue's announcements on
 * the same connection), the posture deadlines of an instance that stopped are taken over, and a router linked
 * to any instance is online at every one.
 */
import { PgStore } from '../store/postgres/pg-store.js';
import { PgLimiterStore } from '../platform/limits/pg-limiter-store.js';
import { PgAccessOutbox } from '../events/pg-access-outbox.js';
import { startDeadlineTakeover, type DeadlineTakeover } from '../access/engine/deadline-takeover.js';
import type { PostureEngine } from '../access/engine/posture-engine.js';
import { SharedRouterPresence } from '../edge-routers/link/shared-presence.js';
import type { ControllerContext } from '../platform/context.js';
import type { LocalRouterLinks, StoreBackend } from './store-backend.js';

export class PostgresBackend implements StoreBackend {
  readonly shared = true;
  /** counted in the database: guesses spread over instances count once */
  readonly limiters: PgLimiterStore;

  private constructor(readonly store: PgStore) {
    this.limiters = PgLimiterStore.beside(store.pool);
  }

  /** Connects and migrates (pg-store.ts); the data folder is not locked: instances may share it. */
  static async open(url: string): Promise<PostgresBackend> {
    return new PostgresBackend(await PgStore.open(url));
  }

  async startOutbox(ctx: ControllerContext): Promise<PgAccessOutbox> {
    const store = this.store;
    const outbox = new PgAccessOutbox(store.pool, ctx, {
      // Another instance's change re-decides the sessions this one granted and resyncs the routers linked
      // here, as the change would have had it been made here.
      onCatalogueChange: (announcedBy) => {
        if (store.catalogueChanged(announcedBy)) ctx.events.emit('policy.changed', 'elsewhere');
      },
      // What another instance changed is dropped from this one's caches; none answers while this cannot hear.
      onCacheNotice: (payload) => store.caches.heard(payload),
      onListening: (up) => store.caches.setListening(up),
    });
    await outbox.start();
    // This instance's own revocations go out before the request that made them is answered, as on SQLite.
    store.db.onOutboxWrite(() => outbox.catchUp());
    return outbox;
  }

  startDeadlineTakeover(ctx: ControllerContext, engine: PostureEngine): DeadlineTakeover {
    return startDeadlineTakeover(ctx, engine);
  }

  routerPresence(local: LocalRouterLinks, ctx: ControllerContext): SharedRouterPresence {
    return new SharedRouterPresence(this.store.pool, this.store.instanceId, local, ctx);
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.limiters.close();
  }
}
