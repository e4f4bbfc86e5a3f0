import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { ServicePolicy } from '../model.js';
import { entityBase } from '../http/envelope.js';
import {
  ServicePolicyCreate,
  ServicePolicyDetail,
  ServicePolicyPatch,
} from '../../src/api/resources/policies.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import { roleNames, rolesDisplay } from './roles.js';
import type { CatalogueService, ServicePolicyDraft } from './catalogue-service.js';
import { preparedWire, type WireOf } from '../http/prepared-wire.js';

/** How a page of policies shows: the names behind their `@id` roles are read once per kind for the page. */
export async function servicePolicyWireOf(
  ctx: ControllerContext,
  policies: readonly ServicePolicy[],
): Promise<WireOf<ServicePolicy>> {
  const { identities, services, postureChecks } = ctx.store;
  const [identityNames, serviceNames, checkNames] = await Promise.all([
    roleNames(
      policies.map((p) => p.identityRoles),
      identities,
    ),
    roleNames(
      policies.map((p) => p.serviceRoles),
      services,
    ),
    roleNames(
      policies.map((p) => p.postureCheckRoles),
      postureChecks,
    ),
  ]);
  return (p) => ({
    ...entityBase('service-policies', p),
    type: p.type,
    semantic: p.semantic,
    identityRoles: p.identityRoles,
    identityRolesDisplay: rolesDisplay(p.identityRoles, identityNames),
    serviceRoles: p.serviceRoles,
    serviceRolesDisplay: rolesDisplay(p.serviceRoles, serviceNames),
    postureCheckRoles: p.postureCheckRoles,
    postureCheckRolesDisplay: rolesDisplay(p.postureCheckRoles, checkNames),
  });
}

type RoleField = 'identityRoles' | 'serviceRoles' | 'postureCheckRoles';

/** A create, PUT or PATCH body as the policy it asks for (a PATCH keeps the role lists it leaves out). */
function readDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: ServicePolicy | undefined,
): ServicePolicyDraft {
  const roles = (field: RoleField) =>
    mode === 'patch' && !(field in body) ? undefined : ((body[field] as string[] | null) ?? []);
  return {
    name: pick(body, 'name', mode, existing?.name, ''),
    type: pick(body, 'type', mode, existing?.type, 'Dial'),
    semantic: pick(body, 'semantic', mode, existing?.semantic, 'AllOf'),
    identityRoles: roles('identityRoles'),
    serviceRoles: roles('serviceRoles'),
    postureCheckRoles: roles('postureCheckRoles'),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
  };
}

/** A create, PUT or PATCH body checked and turned into the policy it would store (nothing is written). */
export const servicePolicyBuilder =
  (catalogue: CatalogueService) =>
  (
    body: Record<string, unknown>,
    mode: WriteMode,
    existing: ServicePolicy | undefined,
    id: string,
    now: Date,
  ) =>
    catalogue.preparePolicy(readDraft(body, mode, existing), existing, id, now);

export function registerServicePolicies(app: Api, ctx: ControllerContext, catalogue: CatalogueService): void {
  const wire = preparedWire<ServicePolicy>('service-policies', (page) => servicePolicyWireOf(ctx, page));
  registerCrud<ServicePolicy>(app, ctx, {
    collection: 'service-policies',
    tag: 'Service Policy',
    repo: ctx.store.servicePolicies,
    schemas: {
      create: ServicePolicyCreate,
      update: ServicePolicyCreate,
      patch: ServicePolicyPatch,
      detail: ServicePolicyDetail,
    },
    prepare: wire.prepare,
    toWire: wire.toWire,
    build: servicePolicyBuilder(catalogue),
    afterWrite: () => catalogue.written(),
  });
}
