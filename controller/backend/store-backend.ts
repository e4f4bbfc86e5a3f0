/**
 * The store's backend opened as one object: the store, and everything whose kind depends on the database
 * under it. SQLite (sqlite-backend.ts) has one controller on its file; PostgreSQL (postgres-backend.ts) has
 * every instance sharing the database, so attempt counts, the access outbox's delivery, posture deadlines
 * and router presence are shared through it. The composition asks this interface and never which backend it
 * has (open-backend.ts is the one place that chooses).
 */
import type { PostureEngine } from '../access/engine/posture-engine.js';
import type { RouterPresence } from '../edge-routers/edge-router-service.js';
import type { RouterLink } from '../edge-routers/link/link-server.js';
import type { ControllerContext } from '../platform/context.js';
import type { LimiterStore } from '../platform/limits/limiter-store.js';
import type { Store } from '../store/repository.js';

/** Something started that the controller stops when it closes. */
export interface Stoppable {
  close(): void | Promise<void>;
}

/** The routers linked to this instance (the link server). */
export type LocalRouterLinks = RouterPresence & { all(): RouterLink[] };

export interface StoreBackend {
  /** the repositories and transactions every module is handed (through the context) */
  readonly store: Store;
  /** other controller instances may use the same database at once (each needs names of its own there) */
  readonly shared: boolean;
  /** where attempt limits keep their counts (this process's memory, or the database every instance shares) */
  readonly limiters: LimiterStore;
  /**
   * Starts delivering the access outbox to `ctx`'s event bus (and, where instances share the database, what
   * the others announce); resolves once it delivers.
   */
  startOutbox(ctx: ControllerContext): Promise<Stoppable>;
  /** Starts enforcing the posture deadlines of instances that stopped; nothing where there is no other. */
  startDeadlineTakeover(ctx: ControllerContext, engine: PostureEngine): Stoppable;
  /** Which routers are online: those linked here, and where instances share the database, those linked to another. */
  routerPresence(local: LocalRouterLinks, ctx: ControllerContext): RouterPresence & Stoppable;
  /** Closes the store and the limiters' counts and releases the data folder; after what it started is stopped. */
  close(): Promise<void>;
}
