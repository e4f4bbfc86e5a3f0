/**
 * `edge-router-policies` (identities → routers) and `service-edge-router-policies` (services → routers), with
 * the role grammar of service policies: `#attribute`, `@id-or-name` (stored as `@id`), `#all`.
 */
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { Entity, EdgeRouterPolicy, ServiceEdgeRouterPolicy } from '../model.js';
import { validationError, type FieldCause } from '../api-error.js';
import { entityBase } from '../http/envelope.js';
import { routerPolicySchemas } from '../../src/api/resources/policies.js';
import { registerCrud, pick } from '../http/crud.js';
import { normaliseRoles, roleNames, rolesDisplay } from '../catalogue/roles.js';
import { preparedWire, type WireOf } from '../http/prepared-wire.js';
import type { EntityRepository } from '../store/repository.js';

type Side = 'identityRoles' | 'serviceRoles';

/** How a page of router policies shows: the names behind its `@id` roles, read once per kind for the page. */
export function routerPolicyWireOf<
  T extends Entity & { semantic: 'AllOf' | 'AnyOf'; edgeRouterRoles: string[] },
>(ctx: ControllerContext, collection: string, side: Side, sideRepo: EntityRepository<Entity>) {
  const sideRolesOf = (p: T) => (p as unknown as Record<Side, string[]>)[side];
  return async (page: readonly T[]): Promise<WireOf<T>> => {
    const [routerNames, sideNames] = await Promise.all([
      roleNames(
        page.map((p) => p.edgeRouterRoles),
        ctx.store.edgeRouters,
      ),
      roleNames(page.map(sideRolesOf), sideRepo),
    ]);
    return (p) => ({
      ...entityBase(collection, p),
      semantic: p.semantic,
      isSystem: false,
      edgeRouterRoles: p.edgeRouterRoles,
      edgeRouterRolesDisplay: rolesDisplay(p.edgeRouterRoles, routerNames),
      [side]: sideRolesOf(p),
      [`${side}Display`]: rolesDisplay(sideRolesOf(p), sideNames),
    });
  };
}

function registerPolicyKind<T extends Entity & { semantic: 'AllOf' | 'AnyOf'; edgeRouterRoles: string[] }>(
  app: Api,
  ctx: ControllerContext,
  collection: string,
  tag: string,
  repo: EntityRepository<T>,
  side: Side,
  sideRepo: EntityRepository<Entity>,
): void {
  const { detail, ...bodies } = routerPolicySchemas(side);
  const wire = preparedWire<T>(collection, routerPolicyWireOf<T>(ctx, collection, side, sideRepo));
  registerCrud<T>(app, ctx, {
    collection,
    tag,
    repo,
    schemas: { ...bodies, detail },
    prepare: wire.prepare,
    toWire: wire.toWire,
    async build(body, mode, existing, id, now) {
      const problems: FieldCause[] = [];
      const roles = (field: string, target: EntityRepository<Entity>) =>
        mode === 'patch' && !(field in body)
          ? ((existing as unknown as Record<string, string[]> | undefined)?.[field] ?? [])
          : normaliseRoles((body[field] as string[] | null) ?? [], field, target, problems);
      const policy = {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        semantic: pick(body, 'semantic', mode, existing?.semantic, 'AnyOf'),
        edgeRouterRoles: await roles(
          'edgeRouterRoles',
          ctx.store.edgeRouters as unknown as EntityRepository<Entity>,
        ),
        [side]: await roles(side, sideRepo),
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      } as unknown as T;
      if (problems.length) throw validationError(problems);
      return policy;
    },
    afterWrite: () => void ctx.events.emit('policy.changed'),
  });
}

export function registerRouterPolicyRoutes(app: Api, ctx: ControllerContext): void {
  const { store } = ctx;
  registerPolicyKind<EdgeRouterPolicy>(
    app,
    ctx,
    'edge-router-policies',
    'Edge Router Policy',
    store.edgeRouterPolicies,
    'identityRoles',
    store.identities as unknown as EntityRepository<Entity>,
  );
  registerPolicyKind<ServiceEdgeRouterPolicy>(
    app,
    ctx,
    'service-edge-router-policies',
    'Service Edge Router Policy',
    store.serviceEdgeRouterPolicies,
    'serviceRoles',
    store.services as unknown as EntityRepository<Entity>,
  );
}
