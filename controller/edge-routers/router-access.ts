/**
 * Which edge routers an identity and a service may use (OpenZiti's edge router policies and service edge
 * router policies, with the same role grammar as service policies), the router credentials the link checks,
 * and routers as clients see them. Routers and both policy kinds are small catalogues: a `RouterAccess` reads
 * them whole, once, and answers for any number of identities, services and sessions.
 */
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouter, EdgeRouterPolicy, Identity, Service, ServiceEdgeRouterPolicy } from '../model.js';
import { roleSelects } from '../catalogue/role-match.js';
import { sameHash } from './router-tokens.js';

const usable = (router: EdgeRouter) => router.isVerified && !router.disabled;

interface Member {
  id: string;
  roleAttributes: string[];
}

/** Whether one of the policies selects both the member (by `memberRoles`) and the router. */
function policiesJoin<P extends { semantic: Parameters<typeof roleSelects>[0]; edgeRouterRoles: string[] }>(
  policies: readonly P[],
  memberRoles: (p: P) => string[],
  member: Member,
  router: EdgeRouter,
): boolean {
  return policies.some(
    (p) =>
      roleSelects(p.semantic, memberRoles(p), member.id, member.roleAttributes) &&
      roleSelects(p.semantic, p.edgeRouterRoles, router.id, router.roleAttributes),
  );
}

/** Router lists worked out per identity and service, at most (then they are worked out afresh). */
const CARRIED_PAIRS = 10_000;

/**
 * Routers and both policy kinds, read once (three reads, whatever the number of routers or sessions asked
 * about); its answers are synchronous. It does not follow later changes: load it again (EdgeRouterService.access hands
 * back the same one only while nothing it was built from changed).
 */
export class RouterAccess {
  private readonly routers: Map<string, EdgeRouter>;
  /** routersFor's answers, for the very identity and service objects asked about */
  private readonly carried = new Map<
    string,
    { identity: Identity; service: Service; routers: EdgeRouter[] }
  >();

  constructor(
    routers: readonly EdgeRouter[],
    private readonly identityPolicies: readonly EdgeRouterPolicy[],
    private readonly servicePolicies: readonly ServiceEdgeRouterPolicy[],
  ) {
    this.routers = new Map(routers.map((r) => [r.id, r]));
  }

  router(id: string): EdgeRouter | undefined {
    return this.routers.get(id);
  }

  /** The routers the identity may use at all. */
  routersOfIdentity(identity: Identity): EdgeRouter[] {
    return [...this.routers.values()].filter((r) => usable(r) && this.identityMayUse(r, identity));
  }

  /** The routers the service may be reached through at all (its service edge router policies). */
  routersOfService(service: Service): EdgeRouter[] {
    return [...this.routers.values()].filter((r) => usable(r) && this.serviceMayUse(r, service));
  }

  /** The routers a session of this identity for this service may use (the same list while nothing changed). */
  routersFor(identity: Identity, service: Service): readonly EdgeRouter[] {
    const key = `${identity.id}\u0000${service.id}`;
    const known = this.carried.get(key);
    if (known && known.identity === identity && known.service === service) return known.routers;
    const routers = [...this.routers.values()].filter((r) => this.mayCarry(r, identity, service));
    if (this.carried.size >= CARRIED_PAIRS) this.carried.clear();
    this.carried.set(key, { identity, service, routers });
    return routers;
  }

  /** Whether the router may carry the identity's traffic to the service. */
  mayCarry(router: EdgeRouter, identity: Identity, service: Service): boolean {
    return usable(router) && this.identityMayUse(router, identity) && this.serviceMayUse(router, service);
  }

  private identityMayUse(router: EdgeRouter, identity: Identity): boolean {
    return policiesJoin(this.identityPolicies, (p) => p.identityRoles, identity, router);
  }

  private serviceMayUse(router: EdgeRouter, service: Service): boolean {
    return policiesJoin(this.servicePolicies, (p) => p.serviceRoles, service, router);
  }
}

/** The router whose id and link secret these are, when it may link. */
export async function authenticateRouter(
  ctx: ControllerContext,
  id: string,
  secret: string,
): Promise<EdgeRouter | undefined> {
  const router = await ctx.store.edgeRouters.get(id);
  if (!router || !usable(router) || !sameHash(router.secretHash, secret)) return undefined;
  return router;
}

/** Where the router says agents reach it; stored so clients get its URL with their sessions. */
export async function recordRouterListener(
  ctx: ControllerContext,
  id: string,
  hostname: string,
  urls: Record<string, string>,
): Promise<void> {
  const { store } = ctx;
  const tls = typeof urls.tls === 'string' ? urls.tls.slice(0, 512) : undefined;
  const unchanged = (router: EdgeRouter | undefined) =>
    !router || (router.hostname === hostname && router.supportedProtocols.tls === tls);
  // Usually the router says what is stored already: no write then.
  if (unchanged(await store.edgeRouters.get(id))) return;
  // Read again and written in one transaction, so an edit made meanwhile (disabled, renamed) is kept.
  await store.transaction(async () => {
    const router = await store.edgeRouters.get(id);
    if (!router || unchanged(router)) return;
    await store.edgeRouters.update({
      ...router,
      hostname: hostname.slice(0, 255),
      supportedProtocols: tls ? { tls } : {},
      updatedAt: ctx.clock.now(),
    });
  });
}
