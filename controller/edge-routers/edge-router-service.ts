/**
 * The edge routers as the rest of the controller asks about them: which ones an identity and a service may
 * use (RouterAccess, reused while nothing changed), which hold a live control link now, and how clients see
 * them. One per controller, made at composition and handed to the routes and the router link that use it.
 */
import type { SessionEdgeRouter } from '../../src/api/data-plane.js';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouter, Identity, Service } from '../model.js';
import { iso } from '../http/envelope.js';
import { RouterAccess } from './router-access.js';

/** Which edge routers hold a live control link now (the router link reports it once it runs). */
export interface RouterPresence {
  isOnline(edgeRouterId: string): boolean;
}

const everything = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };

const sameObjects = (a: readonly object[], b: readonly object[]) =>
  a.length === b.length && a.every((item, i) => item === b[i]);

export class EdgeRouterService {
  /** No router is online until the link runs and says otherwise. */
  private presence: RouterPresence = { isOnline: () => false };
  /** The last RouterAccess built, reused while the store answers the very same objects. */
  private lastLoaded: { lists: readonly (readonly object[])[]; access: RouterAccess } | undefined;

  constructor(private readonly ctx: ControllerContext) {}

  /** The router link, once it listens, tells which routers are linked. */
  followLinks(presence: RouterPresence): void {
    this.presence = presence;
  }

  isOnline(edgeRouterId: string): boolean {
    return this.presence.isOnline(edgeRouterId);
  }

  /**
   * Routers and both edge router policy kinds as they are now (see RouterAccess). A store that keeps them in
   * memory (SQLite) answers the same objects until one changes, and then the last RouterAccess, with what it
   * has worked out, serves again; any new object, and a new one is built.
   */
  async access(): Promise<RouterAccess> {
    const { store } = this.ctx;
    const [routers, identityPolicies, servicePolicies] = await Promise.all([
      store.edgeRouters.list(everything),
      store.edgeRouterPolicies.list(everything),
      store.serviceEdgeRouterPolicies.list(everything),
    ]);
    const lists = [routers.items, identityPolicies.items, servicePolicies.items] as const;
    const last = this.lastLoaded;
    if (last && lists.every((list, i) => sameObjects(list, last.lists[i]!))) return last.access;
    const access = new RouterAccess(...lists);
    this.lastLoaded = { lists, access };
    return access;
  }

  /** The routers the identity may use at all (`GET /current-identity/edge-routers`). */
  async routersOfIdentity(identity: Identity): Promise<readonly EdgeRouter[]> {
    return (await this.access()).routersOfIdentity(identity);
  }

  /**
   * The routers a session of this identity for this service may use. For several sessions, take `access()`
   * once and ask it for each.
   */
  async routersFor(identity: Identity, service: Service): Promise<readonly EdgeRouter[]> {
    return (await this.access()).routersFor(identity, service);
  }

  toSessionWire(router: EdgeRouter): SessionEdgeRouter {
    const isOnline = this.isOnline(router.id);
    return {
      name: router.name,
      hostname: router.hostname,
      urls: router.supportedProtocols,
      supportedProtocols: router.supportedProtocols,
      isOnline,
      cost: router.cost,
      noTraversal: router.noTraversal,
      disabled: router.disabled,
      syncStatus: isOnline ? 'SYNC_DONE' : 'SYNC_UNKNOWN',
      fingerprint: router.fingerprint ?? '',
    };
  }

  toIdentityWire(router: EdgeRouter) {
    return {
      id: router.id,
      createdAt: iso(router.createdAt)!,
      updatedAt: iso(router.updatedAt)!,
      _links: { self: { href: `./edge-routers/${router.id}` } },
      tags: router.tags,
      appData: router.appData,
      ...this.toSessionWire(router),
    };
  }
}
