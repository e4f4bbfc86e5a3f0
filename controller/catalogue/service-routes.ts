import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { Service } from '../model.js';
import { entityBase } from '../http/envelope.js';
import { ServiceCreate, ServiceDetail, ServicePatch } from '../../src/api/resources/services.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import type { CatalogueService, ServiceDraft } from './catalogue-service.js';

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

/** A create, PUT or PATCH body as the service it asks for (a PUT without `configs` keeps them, checked again). */
function readDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: Service | undefined,
): ServiceDraft {
  return {
    name: pick(body, 'name', mode, existing?.name, ''),
    roleAttributes: pick(body, 'roleAttributes', mode, existing?.roleAttributes, []) ?? [],
    configs:
      mode === 'patch' && !('configs' in body)
        ? undefined
        : body.configs === null
          ? []
          : ((body.configs as string[] | undefined) ?? existing?.configs ?? []),
    encryptionRequired: pick(body, 'encryptionRequired', mode, existing?.encryptionRequired, true),
    terminatorStrategy: pick(body, 'terminatorStrategy', mode, existing?.terminatorStrategy, 'smartrouting'),
    maxIdleTimeMillis: pick(body, 'maxIdleTimeMillis', mode, existing?.maxIdleTimeMillis, 0),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
  };
}

export function registerServices(app: Api, ctx: ControllerContext, catalogue: CatalogueService): void {
  registerCrud<Service>(app, ctx, {
    collection: 'services',
    tag: 'Service',
    repo: ctx.store.services,
    schemas: { create: ServiceCreate, update: ServiceCreate, patch: ServicePatch, detail: ServiceDetail },
    toWire: serviceToWire,
    build: (body, mode, existing, id, now) =>
      catalogue.prepareService(readDraft(body, mode, existing), existing, id, now),
    beforeDelete: (service, options) => catalogue.beforeServiceDelete(service, options),
    afterWrite: () => catalogue.written(),
  });
}
