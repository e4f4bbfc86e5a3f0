/**
 * What the router link needs to know about edge routers and services, as one small port: who a router is
 * (its secret), where it listens, which sessions it may carry (edge router policies) and where each
 * service's `host.v1` target is. `createRouterDirectory` wires it to the store.
 */
import { createHash } from 'node:crypto';
import type { RouterServiceTarget, RouterSession } from '../../src/api/data-plane.js';
import type { ControllerContext } from '../context.js';
import type { EdgeSession } from '../posture/posture-repository.js';
import { authenticateRouter, recordRouterListener, routerMayCarry } from '../edge-routers/router-access.js';
import { hostTargetOf } from '../configs/service-targets.js';

export interface RouterDirectory {
  /** the router whose secret this is, if it may link (verified, not disabled) */
  authenticate(edgeRouterId: string, secret: string): { id: string; name: string } | undefined;
  /** whether the router still exists and may link (checked again after every catalogue change) */
  mayLink(edgeRouterId: string): boolean;
  recordListener(edgeRouterId: string, hostname: string, urls: Record<string, string>): void;
  /** edge router policies: may this router carry the identity's traffic to the service? */
  mayCarry(edgeRouterId: string, identityId: string, serviceId: string): boolean;
  serviceTarget(serviceId: string): RouterServiceTarget | null;
  serviceTargets(): RouterServiceTarget[];
}

export const tokenHashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export function toRouterSession(session: EdgeSession): RouterSession {
  return {
    id: session.id,
    tokenHash: tokenHashOf(session.token),
    serviceId: session.serviceId,
    identityId: session.identityId,
    apiSessionId: session.apiSessionId,
    type: session.type,
  };
}

export function createRouterDirectory(ctx: ControllerContext): RouterDirectory {
  const { store } = ctx;
  const serviceTarget = (serviceId: string): RouterServiceTarget | null => {
    const service = store.services.get(serviceId);
    if (!service) return null;
    return { serviceId, name: service.name, host: hostTargetOf(store, serviceId) };
  };
  return {
    authenticate: (id, secret) => {
      const router = authenticateRouter(ctx, id, secret);
      return router && { id: router.id, name: router.name };
    },
    mayLink: (id) => {
      const router = store.edgeRouters.get(id);
      return router !== undefined && !router.disabled && router.isVerified;
    },
    recordListener: (id, hostname, urls) => recordRouterListener(ctx, id, hostname, urls),
    mayCarry: (routerId, identityId, serviceId) => {
      const router = store.edgeRouters.get(routerId);
      return router !== undefined && routerMayCarry(ctx, router, identityId, serviceId);
    },
    serviceTarget,
    serviceTargets: () => {
      const all = store.services.list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 }).items;
      return all.map((s) => serviceTarget(s.id)).filter((t): t is RouterServiceTarget => t !== null);
    },
  };
}
