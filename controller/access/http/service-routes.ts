/**
 * The caller's services (`GET /services`, `/services/<id>`) with their posture queries evaluated for the
 * caller's API session, and `GET /current-api-session/service-updates`, which tells an agent when to list again.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { authOf } from '../../auth/guard.js';
import { notFound } from '../../api-error.js';
import { detail, iso, list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import {
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../../src/api/resources/envelopes.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import type { PostureEngine } from '../engine/posture-engine.js';
import { clientServiceToWire, permissionsOf } from './service-view.js';
import { ClientServiceDetailSchema, ServiceUpdatesSchema } from '../../../src/api/schemas.js';
import { configMapsOf, requestedConfigTypes } from '../../catalogue/configs/service-configs.js';

export function registerServiceRoutes(app: Api, ctx: ControllerContext, engine: PostureEngine): void {
  const tags = ['Service'];
  // OpenZiti: the config types named on the request, plus those the API session was created with.
  // `configTypes` is outside the routes' querystring schemas (read as given: one value, a list or a CSV), so
  // the raw query is read here rather than a typed one.
  const configTypesOf = (query: unknown, fromSession: readonly string[] = []) =>
    requestedConfigTypes(ctx.store, (query as { configTypes?: unknown }).configTypes, fromSession);

  app.get(
    '/services',
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(ClientServiceDetailSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { session, identity } = authOf(request);
      const query = parseListQuery(request.query);
      const resolver = await AccessResolver.of(ctx.store);
      const needle = query.nameContains?.toLowerCase();
      const matching = resolver
        .grantsOf(identity)
        .filter(
          ({ service: s }) =>
            (query.id === undefined || s.id === query.id) &&
            (query.name === undefined || s.name === query.name),
        )
        .filter(({ service: s }) => needle === undefined || s.name.toLowerCase().includes(needle));
      const page = matching.slice(query.offset, query.offset + query.limit);
      const evaluation = await engine.evaluation(resolver, identity.id, session.id);
      const types = await configTypesOf(request.query, session.configTypes);
      const configs = await configMapsOf(
        ctx.store,
        page.map((grant) => ({ service: grant.service, permissions: permissionsOf(grant) })),
        types,
      );
      return list(
        page.map((grant) => clientServiceToWire(grant, evaluation, configs.get(grant.service.id) ?? {})),
        { limit: query.limit, offset: query.offset, totalCount: matching.length },
      );
    },
  );

  app.get(
    '/services/:id',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(ClientServiceDetailSchema), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { session, identity } = authOf(request);
      const { id } = request.params;
      const resolver = await AccessResolver.of(ctx.store);
      const service = resolver.service(id);
      const policies = service ? resolver.policiesFor(identity, service) : [];
      // A service the identity cannot use is as invisible as one that does not exist.
      if (!service || policies.length === 0) throw notFound(`services/${id}`);
      const evaluation = await engine.evaluation(resolver, identity.id, session.id);
      const types = await configTypesOf(request.query, session.configTypes);
      const grant = { service, policies };
      const configs = await configMapsOf(ctx.store, [{ service, permissions: permissionsOf(grant) }], types);
      return detail(clientServiceToWire(grant, evaluation, configs.get(service.id) ?? {}));
    },
  );

  app.get(
    '/current-api-session/service-updates',
    {
      schema: {
        tags: ['Current API Session'],
        response: { 200: detailEnvelope(ServiceUpdatesSchema), ...errorResponses(401) },
      },
    },
    async (request) => {
      const { session, identity } = authOf(request);
      const lastChangeAt = (await ctx.store.posture.changes.lastChangeAt(identity.id)) ?? session.createdAt;
      return detail({ lastChangeAt: iso(lastChangeAt) });
    },
  );
}
