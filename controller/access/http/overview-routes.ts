/**
 * Management API (Postern's additions) for an overview across identities:
 * - `GET /access-summary`: per service, signed-in devices granted and refused now; identities and MFA share;
 * - `GET /failed-service-requests`: every identity's refused session requests, newest first (each identity
 *   keeps its last 50; `/identities/:id/failed-service-requests` lists one identity's).
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { detail, iso, list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import { detailEnvelope, errorResponses, listEnvelope } from '../../../src/api/resources/envelopes.js';
import { ref } from '../../http/refs.js';
import { summariseAccess } from '../decisions/access-summary.js';
import { failedRequestToWire } from './record-views.js';
import {
  AccessSummary,
  FailedServiceRequestsQuery,
  RecentFailedServiceRequest,
} from '../../../src/api/resources/access.js';

export function registerOverviewRoutes(app: Api, ctx: ControllerContext): void {
  const { store } = ctx;

  app.get(
    '/access-summary',
    {
      schema: {
        tags: ['Posture Checks'],
        description:
          'Per service, how many signed-in devices a Dial policy selects are granted and refused now; the number of identities and how many have MFA',
        response: { 200: detailEnvelope(AccessSummary), ...errorResponses(401) },
      },
    },
    async () => {
      const now = ctx.clock.now();
      return detail({ ...(await summariseAccess(store, now)), evaluatedAt: iso(now) });
    },
  );

  app.get(
    '/failed-service-requests',
    {
      schema: {
        tags: ['Posture Checks'],
        description: "Every identity's session requests refused for posture, newest first",
        querystring: FailedServiceRequestsQuery,
        response: { 200: listEnvelope(RecentFailedServiceRequest), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const query = parseListQuery({ limit: request.query.limit, offset: request.query.offset });
      const records = await store.posture.failures.recent(query.limit, query.offset);
      const identities = await store.identities.getMany([...new Set(records.map((r) => r.identityId))]);
      const names = new Map(identities.map((i) => [i.id, i.name]));
      return list(
        records.map((r) => ({
          ...failedRequestToWire(r),
          identity: ref('identities', r.identityId, names.get(r.identityId) ?? r.identityId),
        })),
        { limit: query.limit, offset: query.offset, totalCount: await store.posture.failures.count() },
      );
    },
  );
}
