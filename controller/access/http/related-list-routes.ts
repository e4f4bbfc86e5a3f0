/**
 * The read routes OpenZiti clients and its console use to show how entities relate: the role attributes in
 * use per kind, and who a policy selects (or what selects an identity or a service). Each answers a list
 * envelope of the related entities, resolved through the same role indexes that decide access.
 */
import type { Api } from '../../http/typed-app.js';
import type { TSchema } from '@sinclair/typebox';
import { RoleAttribute } from '../../../src/api/resources/fields.js';
import type { ControllerContext } from '../../platform/context.js';
import type { Entity, Identity, ServicePolicy } from '../../model.js';
import { notFound } from '../../api-error.js';
import { list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import {
  IdParams,
  ListQuerystring,
  errorResponses,
  listEnvelope,
} from '../../../src/api/resources/envelopes.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import { ALL_ROLE, attributeRoles, idRoles, roleSelects } from '../../catalogue/role-match.js';
import type { PostureCheck } from '../../posture-model.js';
import type { AttributedRepository, Store } from '../../store/repository.js';
import { IdentityDetail } from '../../../src/api/resources/identities.js';
import { identityWireOf } from '../../identities/identity-routes.js';
import { servicePolicyWireOf } from '../../catalogue/service-policy-routes.js';
import { ServicePolicyDetail } from '../../../src/api/resources/policies.js';
import { postureCheckToWire } from '../../catalogue/posture-check-routes.js';
import { PostureCheckDetail } from '../../../src/api/resources/posture-checks.js';
import { serviceToWire } from '../../catalogue/service-routes.js';
import { ServiceDetail } from '../../../src/api/resources/services.js';
import type { WireOf } from '../../http/prepared-wire.js';
import type { EnrollmentAuthority } from '../../enrollment/enrollment-authority.js';

/** One page of an in-memory list, by the request's `limit`, `offset` and name filter. */
function page<T extends { name: string; id: string }>(items: T[], query: Record<string, unknown>) {
  const q = parseListQuery(query);
  const matching = items.filter(
    (e) =>
      (q.id === undefined || e.id === q.id) &&
      (q.name === undefined || e.name === q.name) &&
      (q.nameContains === undefined || e.name.toLowerCase().includes(q.nameContains.toLowerCase())),
  );
  return {
    items: matching.slice(q.offset, q.offset + q.limit),
    pagination: { limit: q.limit, offset: q.offset, totalCount: matching.length },
  };
}

/** `enrollment`: what identities' outstanding enrollments show through (as on `/identities`). */
export function registerRelatedLists(
  app: Api,
  ctx: ControllerContext,
  enrollment: EnrollmentAuthority,
): void {
  const { store } = ctx;

  const attributeKinds: [string, AttributedRepository<Entity & { roleAttributes: string[] }>][] = [
    ['identity', store.identities],
    ['service', store.services],
    ['posture-check', store.postureChecks as never],
    ['edge-router', store.edgeRouters],
  ];
  for (const [kind, repo] of attributeKinds) {
    app.get(
      `/${kind}-role-attributes`,
      {
        schema: {
          tags: ['Role Attributes'],
          description: `Every role attribute some ${kind} carries, sorted`,
          querystring: ListQuerystring,
          response: { 200: listEnvelope(RoleAttribute), ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        const attributes = (await repo.attributes()).map((a) => ({ id: a, name: a }));
        const { items, pagination } = page(attributes, request.query);
        return list(
          items.map((a) => a.id),
          pagination,
        );
      },
    );
  }

  function related<O, R extends { name: string; id: string }>(
    path: string,
    tag: string,
    item: TSchema,
    load: (id: string) => Promise<O | undefined>,
    find: (owner: O, resolver: AccessResolver) => R[] | Promise<R[]>,
    wireOf: (page: readonly R[]) => Promise<WireOf<R>>,
  ): void {
    registerRelatedList(app, store, path, tag, item, load, find, wireOf);
  }

  const policy = (id: string) => store.servicePolicies.get(id);
  const identityWire = (page: readonly Identity[]) => identityWireOf(ctx, page, 'secrets', enrollment);
  const policyWire = (page: readonly ServicePolicy[]) => servicePolicyWireOf(ctx, page);
  const serviceWire = async () => serviceToWire;
  const checkWire = async () => (c: PostureCheck) => postureCheckToWire(c);

  related(
    '/service-policies/:id/identities',
    'Service Policy',
    IdentityDetail,
    policy,
    (p, r) => r.identitiesOf(p, store.identities),
    identityWire,
  );
  related(
    '/service-policies/:id/services',
    'Service Policy',
    ServiceDetail,
    policy,
    (p, r) => r.servicesOf(p),
    serviceWire,
  );
  related(
    '/service-policies/:id/posture-checks',
    'Service Policy',
    PostureCheckDetail,
    policy,
    (p, r) => r.checksOf(p),
    checkWire,
  );

  const identity = (id: string) => store.identities.get(id);
  related(
    '/identities/:id/service-policies',
    'Identity',
    ServicePolicyDetail,
    identity,
    (i, r) => r.policiesOf(i),
    policyWire,
  );
  related(
    '/identities/:id/services',
    'Identity',
    ServiceDetail,
    identity,
    (i, r) => r.grantsOf(i).map((g) => g.service),
    serviceWire,
  );

  const service = (id: string) => store.services.get(id);
  related(
    '/services/:id/service-policies',
    'Service',
    ServicePolicyDetail,
    service,
    (s, r) => r.policiesSelecting(s),
    policyWire,
  );
  related(
    '/services/:id/identities',
    'Service',
    IdentityDetail,
    service,
    async (s, r) => uniqueById(await identitiesOfAny(r.policiesSelecting(s), store.identities)),
    identityWire,
  );
}

/**
 * `GET /<owner>/:id/<related>`: the owner loaded (404 when unknown), then its related entities; only the
 * page shown is rendered, its views loaded for the page at once.
 */
export function registerRelatedList<O, R extends { name: string; id: string }>(
  app: Api,
  store: Store,
  path: string,
  tag: string,
  item: TSchema,
  load: (id: string) => Promise<O | undefined>,
  find: (owner: O, resolver: AccessResolver) => R[] | Promise<R[]>,
  wireOf: (page: readonly R[]) => Promise<WireOf<R>>,
): void {
  app.get(
    path,
    {
      schema: {
        tags: [tag],
        params: IdParams,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(item), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const owner = await load(id);
      if (owner === undefined) throw notFound(`${path.split('/')[1]}/${id}`);
      const { items, pagination } = page(await find(owner, await AccessResolver.of(store)), request.query);
      const wire = await wireOf(items);
      return list(items.map(wire), pagination);
    },
  );
}

/**
 * The identities any of the policies selects: the candidates are read once for all the policies (one lookup
 * by attribute, one by id), not once per policy, then each kept when some policy selects it.
 */
export async function identitiesOfAny(
  policies: readonly Pick<ServicePolicy, 'semantic' | 'identityRoles'>[],
  identities: AttributedRepository<Identity>,
): Promise<Identity[]> {
  if (policies.length === 0) return [];
  const roles = policies.flatMap((p) => p.identityRoles);
  const candidates = roles.includes(ALL_ROLE)
    ? (await identities.list({ limit: Math.max(await identities.count(), 1), offset: 0 })).items
    : await identities.getMany([
        ...new Set([...idRoles(roles), ...(await identities.idsWithAnyAttribute(attributeRoles(roles)))]),
      ]);
  return candidates.filter((e) =>
    policies.some((p) => roleSelects(p.semantic, p.identityRoles, e.id, e.roleAttributes)),
  );
}

export function uniqueById<T extends { id: string; name: string }>(items: T[]): T[] {
  const seen = new Map(items.map((e) => [e.id, e]));
  return [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
