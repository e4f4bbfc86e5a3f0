/**
 * `GET /summary` on the management API: how many of each entity the network holds, under OpenZiti's names
 * for them (its controller counts every store: controller/db/stores.go GetEntityCounts), so ZAC's dashboard
 * shows real figures. Edge routers appear twice, as OpenZiti counts them: `routers` (every router) and
 * `routers.edge` (those that are edge routers: every router here). What Postern does not have is counted
 * as none, never left out: a client reading a count finds a number.
 */
import { Type } from '@sinclair/typebox';
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { detail } from '../http/envelope.js';
import { detailEnvelope, errorResponses } from '../../src/api/resources/envelopes.js';
import { POSTURE_TYPE_DESCRIPTORS } from '../../src/api/posture-types/index.js';

/** One row's page: enough for a list's total count without reading its rows. */
const COUNT_ONLY = { limit: 1, offset: 0 };

export const SummaryCounts = Type.Record(Type.String(), Type.Integer());

export function registerSummary(app: Api, ctx: ControllerContext): void {
  const { store } = ctx;
  app.get(
    '/summary',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['Informational'],
        response: { 200: detailEnvelope(SummaryCounts), ...errorResponses(401) },
      },
    },
    async () => {
      const [
        identities,
        services,
        configs,
        configTypes,
        servicePolicies,
        authPolicies,
        postureChecks,
        edgeRouters,
        edgeRouterPolicies,
        serviceEdgeRouterPolicies,
        apiSessions,
        sessions,
        authenticators,
      ] = await Promise.all([
        store.identities.count(),
        store.services.count(),
        store.configs.count(),
        store.configTypes.count(),
        store.servicePolicies.count(),
        store.authPolicies.count(),
        store.postureChecks.count(),
        store.edgeRouters.count(),
        store.edgeRouterPolicies.count(),
        store.serviceEdgeRouterPolicies.count(),
        store.apiSessions.list(COUNT_ONLY).then((p) => p.totalCount),
        store.posture.sessions.list(COUNT_ONLY).then((p) => p.totalCount),
        store.authenticators.list(COUNT_ONLY).then((p) => p.totalCount),
      ]);
      return detail({
        identities,
        services,
        configs,
        configTypes,
        servicePolicies,
        authPolicies,
        postureChecks,
        postureCheckTypes: POSTURE_TYPE_DESCRIPTORS.length,
        routers: edgeRouters,
        'routers.edge': edgeRouters,
        edgeRouterPolicies,
        serviceEdgeRouterPolicies,
        apiSessions,
        sessions,
        authenticators,
        // Kept by OpenZiti, absent here (docs/OPENZITI-COMPATIBILITY.md, ZAC): none of each.
        terminators: 0,
        cas: 0,
        externalJwtSigners: 0,
      });
    },
  );
}
