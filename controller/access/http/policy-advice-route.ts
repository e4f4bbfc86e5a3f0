/**
 * OpenZiti's `GET /identities/:id/policy-advice/:serviceId` (ZAC's "policy advisor"), answered from the same
 * explanation the console's "Why blocked?" shows (AccessExplainer): Dial and Bind allowed when a policy of
 * that type selects both and its posture checks pass now; the routers each side may use and those they share.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../api-error.js';
import { detail } from '../../http/envelope.js';
import { ref } from '../../http/refs.js';
import { detailEnvelope, errorResponses } from '../../../src/api/resources/envelopes.js';
import { AccessExplainer, sessionToExplain } from '../decisions/access-explanation.js';
import type { EdgeRouterService } from '../../edge-routers/edge-router-service.js';

const Params = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 255 }),
  serviceId: Type.String({ minLength: 1, maxLength: 255 }),
});
const EntityRef = Type.Object({}, { additionalProperties: true });
const PolicyAdvice = Type.Object(
  {
    identityId: Type.String(),
    identity: EntityRef,
    serviceId: Type.String(),
    service: EntityRef,
    isBindAllowed: Type.Boolean(),
    isDialAllowed: Type.Boolean(),
    identityRouterCount: Type.Integer(),
    serviceRouterCount: Type.Integer(),
    commonRouters: Type.Array(EntityRef),
  },
  { additionalProperties: true },
);

export function registerPolicyAdviceRoute(
  app: Api,
  ctx: ControllerContext,
  edgeRouters: EdgeRouterService,
): void {
  const { store } = ctx;
  app.get(
    '/identities/:id/policy-advice/:serviceId',
    {
      schema: {
        tags: ['Identity'],
        description:
          'Whether the identity may dial and bind the service, and the edge routers each may use and they share',
        params: Params,
        response: { 200: detailEnvelope(PolicyAdvice), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { id, serviceId } = request.params;
      const identity = await store.identities.get(id);
      if (!identity) throw notFound(`identities/${id}`);
      const service = await store.services.get(serviceId);
      if (!service) throw notFound(`services/${serviceId}`);
      const session = await sessionToExplain(store, identity);
      const explainer = await AccessExplainer.create(store, identity, session, ctx.clock.now());
      const { granted } = explainer.explain(service);
      const access = await edgeRouters.access();
      const common = access.routersFor(identity, service);
      return detail({
        identityId: identity.id,
        identity: ref('identities', identity.id, identity.name),
        serviceId: service.id,
        service: ref('services', service.id, service.name),
        isBindAllowed: granted.Bind === true,
        isDialAllowed: granted.Dial === true,
        identityRouterCount: access.routersOfIdentity(identity).length,
        serviceRouterCount: access.routersOfService(service).length,
        commonRouters: common.map((r) => ({
          ...ref('edge-routers', r.id, r.name),
          isOnline: edgeRouters.isOnline(r.id),
        })),
      });
    },
  );
}
