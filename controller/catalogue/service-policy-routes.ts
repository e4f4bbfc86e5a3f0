import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { ServicePolicy } from '../model.js';
import { validationError, type FieldCause } from '../api-error.js';
import { entityBase } from '../http/envelope.js';
import {
  ServicePolicyCreate,
  ServicePolicyDetail,
  ServicePolicyPatch,
} from '../../src/api/resources/policies.js';
import { registerCrud, pick } from '../http/crud.js';
import { normaliseRoles, roleNames, rolesDisplay } from './roles.js';
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

export function registerServicePolicies(app: Api, ctx: ControllerContext): void {
  const { identities, services, postureChecks } = ctx.store;
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
    async build(body, mode, existing, id, now) {
      const problems: FieldCause[] = [];
      const roles = (
        field: 'identityRoles' | 'serviceRoles' | 'postureCheckRoles',
        repo: Parameters<typeof normaliseRoles>[2],
      ) =>
        mode === 'patch' && !(field in body)
          ? (existing?.[field] ?? [])
          : normaliseRoles((body[field] as string[] | null) ?? [], field, repo, problems);
      const policy: ServicePolicy = {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        type: pick(body, 'type', mode, existing?.type, 'Dial'),
        semantic: pick(body, 'semantic', mode, existing?.semantic, 'AllOf'),
        identityRoles: await roles('identityRoles', identities),
        serviceRoles: await roles('serviceRoles', services),
        postureCheckRoles: await roles('postureCheckRoles', postureChecks),
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      if (problems.length) throw validationError(problems);
      return policy;
    },
    afterWrite: () => void ctx.events.emit('policy.changed'),
  });
}
