import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { Service } from '../model.js';
import { entityBase } from '../http/envelope.js';
import { ServiceCreate, ServiceDetail, ServicePatch } from '../../src/api/resources/services.js';
import { releasePolicyReferences } from './policy-references.js';
import { registerCrud, pick } from '../http/crud.js';
import { normaliseAttributes } from './roles.js';
import { validationError, type FieldCause } from '../api-error.js';
import { resolveServiceConfigs } from './configs/service-configs.js';

export function serviceToWire(service: Service): Record<string, unknown> {
  return {
    configs: service.configs ?? [],
    ...entityBase('services', service),
    roleAttributes: service.roleAttributes,
    encryptionRequired: service.encryptionRequired,
    terminatorStrategy: service.terminatorStrategy,
    maxIdleTimeMillis: service.maxIdleTimeMillis,
    config: {},
    // What the caller may do with the service and must pass for it: the management API's caller is an
    // administrator acting on the catalogue, not a device dialing, so neither applies (OpenZiti's shape).
    permissions: [],
    postureQueries: [],
  };
}

export function registerServices(app: Api, ctx: ControllerContext): void {
  registerCrud<Service>(app, ctx, {
    collection: 'services',
    tag: 'Service',
    repo: ctx.store.services,
    schemas: { create: ServiceCreate, update: ServiceCreate, patch: ServicePatch, detail: ServiceDetail },
    toWire: serviceToWire,
    build: async (body, mode, existing, id, now) => {
      const problems: FieldCause[] = [];
      const configs =
        mode === 'patch' && !('configs' in body)
          ? (existing?.configs ?? [])
          : await resolveServiceConfigs(
              ctx.store,
              body.configs === null
                ? []
                : ((body.configs as string[] | undefined) ?? existing?.configs ?? []),
              problems,
            );
      if (problems.length) throw validationError(problems);
      return {
        id,
        configs,
        name: pick(body, 'name', mode, existing?.name, ''),
        roleAttributes: normaliseAttributes(
          pick(body, 'roleAttributes', mode, existing?.roleAttributes, []) ?? [],
        ),
        encryptionRequired: pick(body, 'encryptionRequired', mode, existing?.encryptionRequired, true),
        terminatorStrategy: pick(
          body,
          'terminatorStrategy',
          mode,
          existing?.terminatorStrategy,
          'smartrouting',
        ),
        maxIdleTimeMillis: pick(body, 'maxIdleTimeMillis', mode, existing?.maxIdleTimeMillis, 0),
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
    },
    beforeDelete: async (service, { cascade }) => {
      await releasePolicyReferences(ctx, 'service', service, 'service', cascade);
    },
    afterWrite: () => void ctx.events.emit('policy.changed'),
  });
}
