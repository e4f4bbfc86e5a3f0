/**
 * The related lists ZAC reads on its service, config, router and identity pages, answered from the same role
 * matching that decides access: a service's configs and a config's services; a router's edge router policies
 * and service edge router policies (those whose `edgeRouterRoles` select it), the identities and services
 * those policies join to it; the routers an identity may use. `transit-routers` is OpenZiti's fabric-only
 * router kind: Postern has none, so it answers an empty page.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import type {
  Config,
  EdgeRouter,
  EdgeRouterPolicy,
  Entity,
  Identity,
  Service,
  ServiceEdgeRouterPolicy,
} from '../../model.js';
import { list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import { ListQuerystring, errorResponses, listEnvelope } from '../../../src/api/resources/envelopes.js';
import { ConfigDetail } from '../../../src/api/resources/configs.js';
import { ServiceDetail } from '../../../src/api/resources/services.js';
import { IdentityDetail } from '../../../src/api/resources/identities.js';
import { EdgeRouterDetail } from '../../../src/api/resources/edge-routers.js';
import { routerPolicySchemas } from '../../../src/api/resources/policies.js';
import { roleSelects } from '../../catalogue/role-match.js';
import { configWireOf } from '../../catalogue/configs/config-routes.js';
import { serviceToWire } from '../../catalogue/service-routes.js';
import { identityWireOf } from '../../identities/identity-routes.js';
import { edgeRouterWire } from '../../edge-routers/edge-router-routes.js';
import { routerPolicyWireOf } from '../../edge-routers/router-policy-routes.js';
import { servicesUsingConfig } from '../../catalogue/configs/service-configs.js';
import type { EdgeRouterService } from '../../edge-routers/edge-router-service.js';
import type { EnrollmentAuthority } from '../../enrollment/enrollment-authority.js';
import type { EntityRepository } from '../../store/repository.js';
import { identitiesOfAny, registerRelatedList, uniqueById } from './related-list-routes.js';

const everything = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };

const selectsRouter =
  (router: EdgeRouter) => (p: { semantic: EdgeRouterPolicy['semantic']; edgeRouterRoles: string[] }) =>
    roleSelects(p.semantic, p.edgeRouterRoles, router.id, router.roleAttributes);

export function registerRouterAndConfigLists(
  app: Api,
  ctx: ControllerContext,
  edgeRouters: EdgeRouterService,
  enrollment: EnrollmentAuthority,
): void {
  const { store } = ctx;
  const serviceWire = async () => serviceToWire;
  const identityWire = (page: readonly Identity[]) => identityWireOf(ctx, page, 'secrets', enrollment);
  const routerWire = async () => edgeRouterWire(edgeRouters, enrollment);

  registerRelatedList(
    app,
    store,
    '/services/:id/configs',
    'Service',
    ConfigDetail,
    (id) => store.services.get(id),
    async (service: Service) => store.configs.getMany(service.configs ?? []),
    configWireOf(store),
  );
  registerRelatedList(
    app,
    store,
    '/configs/:id/services',
    'Config',
    ServiceDetail,
    (id) => store.configs.get(id),
    (config: Config) => servicesUsingConfig(store, config.id),
    serviceWire,
  );

  const router = (id: string) => store.edgeRouters.get(id);
  const routerPolicies = async (r: EdgeRouter) =>
    (await store.edgeRouterPolicies.list(everything)).items.filter(selectsRouter(r));
  const serviceRouterPolicies = async (r: EdgeRouter) =>
    (await store.serviceEdgeRouterPolicies.list(everything)).items.filter(selectsRouter(r));

  registerRelatedList(
    app,
    store,
    '/edge-routers/:id/edge-router-policies',
    'Edge Router',
    routerPolicySchemas('identityRoles').detail,
    router,
    routerPolicies,
    routerPolicyWireOf<EdgeRouterPolicy>(
      ctx,
      'edge-router-policies',
      'identityRoles',
      store.identities as unknown as EntityRepository<Entity>,
    ),
  );
  registerRelatedList(
    app,
    store,
    '/edge-routers/:id/service-edge-router-policies',
    'Edge Router',
    routerPolicySchemas('serviceRoles').detail,
    router,
    serviceRouterPolicies,
    routerPolicyWireOf<ServiceEdgeRouterPolicy>(
      ctx,
      'service-edge-router-policies',
      'serviceRoles',
      store.services as unknown as EntityRepository<Entity>,
    ),
  );
  registerRelatedList(
    app,
    store,
    '/edge-routers/:id/identities',
    'Edge Router',
    IdentityDetail,
    router,
    async (r: EdgeRouter) => uniqueById(await identitiesOfAny(await routerPolicies(r), store.identities)),
    identityWire,
  );
  registerRelatedList(
    app,
    store,
    '/edge-routers/:id/services',
    'Edge Router',
    ServiceDetail,
    router,
    async (r: EdgeRouter) => {
      const policies = await serviceRouterPolicies(r);
      if (policies.length === 0) return [];
      const services = (await store.services.list(everything)).items;
      return services.filter((s) =>
        policies.some((p) => roleSelects(p.semantic, p.serviceRoles, s.id, s.roleAttributes)),
      );
    },
    serviceWire,
  );
  registerRelatedList(
    app,
    store,
    '/identities/:id/edge-routers',
    'Identity',
    EdgeRouterDetail,
    (id) => store.identities.get(id),
    async (identity: Identity) => [...(await edgeRouters.routersOfIdentity(identity))],
    routerWire,
  );

  app.get(
    '/transit-routers',
    {
      schema: {
        tags: ['Transit Router'],
        description: "OpenZiti's fabric-only routers: Postern has none, so always an empty page",
        querystring: ListQuerystring,
        response: { 200: listEnvelope(EdgeRouterDetail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = parseListQuery(request.query);
      return list([], { limit: q.limit, offset: q.offset, totalCount: 0 });
    },
  );
}
