/**
 * Management API (Postern's additions): why an identity can or cannot reach a service, written out policy by
 * policy and check by check.
 * - `GET /identities/:id/service-access`: every service the identity's policies reach, each with its decision;
 * - `GET /identities/:id/services/:serviceId/access`: one service, any service, with the service's policies
 *   that do not select the identity (the answer to "why is this blocked?" when no policy applies at all).
 * Both take `apiSessionId` to evaluate one particular API session (MFA checks are per session).
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import type { Identity } from '../../model.js';
import { notFound } from '../../api-error.js';
import { detail, list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import { detailEnvelope, errorResponses, listEnvelope } from '../../../src/api/resources/envelopes.js';
import { ref } from '../../http/refs.js';
import {
  AccessExplainer,
  sessionToExplain,
  type AccessExplanation,
} from '../decisions/access-explanation.js';
import {
  ServiceAccess,
  ServiceAccessListParams,
  ServiceAccessListQuery,
  ServiceAccessParams,
  ServiceAccessQuery,
} from '../../../src/api/resources/access.js';

export function accessToWire(e: AccessExplanation) {
  return {
    service: ref('services', e.service.id, e.service.name),
    identity: ref('identities', e.identity.id, e.identity.name),
    apiSessionId: e.apiSessionId,
    granted: e.granted,
    policies: e.policies,
    ...(e.otherPolicies ? { otherPolicies: e.otherPolicies } : {}),
  };
}

export function registerAccessRoutes(app: Api, ctx: ControllerContext): void {
  const tags = ['Identity'];
  const { store } = ctx;
  const identityOf = async (id: string): Promise<Identity> => {
    const identity = await store.identities.get(id);
    if (!identity) throw notFound(`identities/${id}`);
    return identity;
  };
  const explainerFor = async (identity: Identity, apiSessionId: string | undefined) => {
    const session = await sessionToExplain(store, identity, apiSessionId);
    if (apiSessionId !== undefined && !session) throw notFound(`api-sessions/${apiSessionId}`);
    return AccessExplainer.create(store, identity, session, ctx.clock.now());
  };

  app.get(
    '/identities/:id/service-access',
    {
      schema: {
        tags,
        description:
          "Every service the identity's policies reach, with each policy and posture check and its result",
        params: ServiceAccessListParams,
        querystring: ServiceAccessListQuery,
        response: { 200: listEnvelope(ServiceAccess), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const q = request.query;
      const query = parseListQuery(q);
      const explainer = await explainerFor(await identityOf(id), q.apiSessionId);
      const services = explainer.resolver
        .grantsOf(explainer.identity)
        .map((g) => g.service)
        .filter(
          (s) =>
            (query.id === undefined || s.id === query.id) &&
            (query.name === undefined || s.name === query.name) &&
            (query.nameContains === undefined ||
              s.name.toLowerCase().includes(query.nameContains.toLowerCase())),
        );
      const page = services.slice(query.offset, query.offset + query.limit);
      return list(
        page.map((s) => accessToWire(explainer.explain(s))),
        { limit: query.limit, offset: query.offset, totalCount: services.length },
      );
    },
  );

  app.get(
    '/identities/:id/services/:serviceId/access',
    {
      schema: {
        tags,
        description:
          'Why the identity can or cannot reach the service: each policy selecting both, each posture check with its actual and expected values and reason, and the policies that select the service but not the identity',
        params: ServiceAccessParams,
        querystring: ServiceAccessQuery,
        response: { 200: detailEnvelope(ServiceAccess), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { id, serviceId } = request.params;
      const { apiSessionId } = request.query;
      const identity = await identityOf(id);
      const service = await store.services.get(serviceId);
      if (!service) throw notFound(`services/${serviceId}`);
      return detail(accessToWire((await explainerFor(identity, apiSessionId)).explainWithOthers(service)));
    },
  );
}
