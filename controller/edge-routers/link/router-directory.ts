/**
 * What the router link needs to know about edge routers and services, as one small port: who a router is
 * (its secret), where it listens, which sessions it may carry (edge router policies) and where each
 * service's `host.v1` target is. `createRouterDirectory` wires it to the store.
 */
import type { RouterServiceTarget, RouterSession } from '../../../src/api/data-plane.js';
import type { ControllerContext } from '../../platform/context.js';
import type { EdgeSession } from '../../store/posture-repository.js';
import { authenticateRouter, recordRouterListener } from '../router-access.js';
import type { EdgeRouterService } from '../edge-router-service.js';
import { hostTargetsOf } from '../../catalogue/configs/service-targets.js';

export interface RouterDirectory {
  /** the router whose secret this is, if it may link (verified, not disabled) */
  authenticate(edgeRouterId: string, secret: string): Promise<{ id: string; name: string } | undefined>;
  /** which of these routers still exist and may link (checked again after every catalogue change) */
  linkable(edgeRouterIds: readonly string[]): Promise<Set<string>>;
  recordListener(edgeRouterId: string, hostname: string, urls: Record<string, string>): Promise<void>;
  /**
   * Edge router policies for these sessions: which routers may carry which of them. Reads the routers, both
   * policy kinds and the sessions' identities and services once, however many routers and sessions; the
   * answer is a synchronous check over exactly these.
   */
  carriage(sessions: readonly EdgeSession[]): Promise<Carriage>;
  serviceTarget(serviceId: string): Promise<RouterServiceTarget | null>;
  serviceTargets(): Promise<RouterServiceTarget[]>;
}

/** May this router carry this session (one of those the check was loaded for)? */
export type Carriage = (edgeRouterId: string, session: EdgeSession) => boolean;

export function toRouterSession(session: EdgeSession): RouterSession {
  return {
    id: session.id,
    tokenHash: session.tokenHash,
    serviceId: session.serviceId,
    identityId: session.identityId,
    apiSessionId: session.apiSessionId,
    type: session.type,
  };
}

export function createRouterDirectory(
  ctx: ControllerContext,
  edgeRouters: EdgeRouterService,
): RouterDirectory {
  const { store } = ctx;
  const everything = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };
  return {
    authenticate: async (id, secret) => {
      const router = await authenticateRouter(ctx, id, secret);
      return router && { id: router.id, name: router.name };
    },
    linkable: async (ids) => {
      const routers = ids.length === 0 ? [] : await store.edgeRouters.getMany([...new Set(ids)]);
      return new Set(routers.filter((r) => !r.disabled && r.isVerified).map((r) => r.id));
    },
    recordListener: (id, hostname, urls) => recordRouterListener(ctx, id, hostname, urls),
    carriage: async (sessions) => {
      if (sessions.length === 0) return () => false;
      const [access, identities, services] = await Promise.all([
        edgeRouters.access(),
        store.identities.getMany([...new Set(sessions.map((s) => s.identityId))]),
        store.services.getMany([...new Set(sessions.map((s) => s.serviceId))]),
      ]);
      const identityById = new Map(identities.map((i) => [i.id, i]));
      const serviceById = new Map(services.map((s) => [s.id, s]));
      return (routerId, session) => {
        const router = access.router(routerId);
        const identity = identityById.get(session.identityId);
        const service = serviceById.get(session.serviceId);
        return Boolean(router && identity && service && access.mayCarry(router, identity, service));
      };
    },
    serviceTarget: async (serviceId) => {
      const service = await store.services.get(serviceId);
      if (!service) return null;
      const host = (await hostTargetsOf(store, [service])).get(service.id) ?? null;
      return { serviceId, name: service.name, host };
    },
    serviceTargets: async () => {
      const services = (await store.services.list(everything)).items;
      const hosts = await hostTargetsOf(store, services);
      return services.map((s) => ({ serviceId: s.id, name: s.name, host: hosts.get(s.id) ?? null }));
    },
  };
}
