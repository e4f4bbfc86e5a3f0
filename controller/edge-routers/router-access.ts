/**
 * Which edge routers an identity and a service may use (OpenZiti's edge router policies and service edge
 * router policies, with the same role grammar as service policies), the router credentials the link checks,
 * and routers as clients see them. Routers and both policy kinds are small catalogues kept in memory.
 */
import type { SessionEdgeRouter } from '../../src/api/data-plane.js';
import type { ControllerContext } from '../context.js';
import type { EdgeRouter, Identity, Service } from '../model.js';
import { roleSelects } from '../posture/access/role-match.js';
import { iso } from '../http/envelope.js';
import { sameHash } from './router-tokens.js';

const everything = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };

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

const identityMayUse = (ctx: ControllerContext, router: EdgeRouter, identity: Identity): boolean =>
  policiesJoin(ctx.store.edgeRouterPolicies.list(everything).items, (p) => p.identityRoles, identity, router);

const serviceMayUse = (ctx: ControllerContext, router: EdgeRouter, service: Service): boolean =>
  policiesJoin(
    ctx.store.serviceEdgeRouterPolicies.list(everything).items,
    (p) => p.serviceRoles,
    service,
    router,
  );

const allRouters = (ctx: ControllerContext) => ctx.store.edgeRouters.list(everything).items;

/** The routers the identity may use at all (`GET /current-identity/edge-routers`). */
export const routersOfIdentity = (ctx: ControllerContext, identity: Identity) => {
  const policies = ctx.store.edgeRouterPolicies.list(everything).items;
  return allRouters(ctx).filter(
    (r) => usable(r) && policiesJoin(policies, (p) => p.identityRoles, identity, r),
  );
};

/** The routers a session of this identity for this service may use (policies read once, not per router). */
export const routersFor = (ctx: ControllerContext, identity: Identity, service: Service) => {
  const identityPolicies = ctx.store.edgeRouterPolicies.list(everything).items;
  const servicePolicies = ctx.store.serviceEdgeRouterPolicies.list(everything).items;
  return allRouters(ctx).filter(
    (r) =>
      usable(r) &&
      policiesJoin(identityPolicies, (p) => p.identityRoles, identity, r) &&
      policiesJoin(servicePolicies, (p) => p.serviceRoles, service, r),
  );
};

export function routerMayCarry(
  ctx: ControllerContext,
  router: EdgeRouter,
  identityId: string,
  serviceId: string,
) {
  const identity = ctx.store.identities.get(identityId);
  const service = ctx.store.services.get(serviceId);
  return Boolean(
    identity &&
    service &&
    usable(router) &&
    identityMayUse(ctx, router, identity) &&
    serviceMayUse(ctx, router, service),
  );
}

/** The router whose id and link secret these are, when it may link. */
export function authenticateRouter(
  ctx: ControllerContext,
  id: string,
  secret: string,
): EdgeRouter | undefined {
  const router = ctx.store.edgeRouters.get(id);
  if (!router || !usable(router) || !sameHash(router.secretHash, secret)) return undefined;
  return router;
}

/** Where the router says agents reach it; stored so clients get its URL with their sessions. */
export function recordRouterListener(
  ctx: ControllerContext,
  id: string,
  hostname: string,
  urls: Record<string, string>,
) {
  const router = ctx.store.edgeRouters.get(id);
  if (!router) return;
  const tls = typeof urls.tls === 'string' ? urls.tls.slice(0, 512) : undefined;
  if (router.hostname === hostname && router.supportedProtocols.tls === tls) return;
  ctx.store.edgeRouters.update({
    ...router,
    hostname: hostname.slice(0, 255),
    supportedProtocols: tls ? { tls } : {},
    updatedAt: ctx.clock.now(),
  });
}

export function routerToSessionWire(ctx: ControllerContext, router: EdgeRouter): SessionEdgeRouter {
  const isOnline = ctx.routerPresence.isOnline(router.id);
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

export function routerToIdentityWire(ctx: ControllerContext, router: EdgeRouter) {
  return {
    id: router.id,
    createdAt: iso(router.createdAt)!,
    updatedAt: iso(router.updatedAt)!,
    _links: { self: { href: `./edge-routers/${router.id}` } },
    tags: router.tags,
    appData: router.appData,
    ...routerToSessionWire(ctx, router),
  };
}
