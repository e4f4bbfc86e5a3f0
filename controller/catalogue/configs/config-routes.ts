/**
 * Management CRUD for `config-types` and `configs`, OpenZiti's way of attaching data to services (`intercept.v1`
 * tells clients where to listen, `host.v1` tells the router where to dial). The rules (data validated against
 * its type's JSON schema on every write; a type or config still in use cannot be deleted) live in
 * config-service.ts; the routes read requests and shape answers.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import type { Config, ConfigType } from '../../model.js';
import { entityBase } from '../../http/envelope.js';
import {
  ConfigBodies,
  ConfigDetail,
  ConfigTypeBodies,
  ConfigTypeDetail,
} from '../../../src/api/resources/configs.js';
import { registerCrud, pick, type WriteMode } from '../../http/crud.js';
import { ref } from '../../http/refs.js';
import { preparedWire, type WireOf } from '../../http/prepared-wire.js';
import type { Store } from '../../store/repository.js';
import type { ConfigDraft, ConfigService, ConfigTypeDraft } from './config-service.js';

/** A create, PUT or PATCH body as the config type it asks for. */
function readTypeDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: ConfigType | undefined,
): ConfigTypeDraft {
  return {
    name: pick(body, 'name', mode, existing?.name, ''),
    schema: pick(body, 'schema', mode, existing?.schema, {}),
    target: pick(body, 'target', mode, existing?.target, 'service'),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
  };
}

/** A create, PUT or PATCH body as the config it asks for. */
function readConfigDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: Config | undefined,
): ConfigDraft {
  return {
    name: pick(body, 'name', mode, existing?.name, ''),
    configTypeId: body.configTypeId as string | undefined,
    data: pick(body, 'data', mode, existing?.data, {}),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
  };
}

/** How a page of configs shows: with its types' names, read once for the page. */
export function configWireOf(store: Store) {
  return async (page: readonly Config[]): Promise<WireOf<Config>> => {
    const types = await store.configTypes.getMany([...new Set(page.map((c) => c.configTypeId))]);
    const names = new Map(types.map((t) => [t.id, t.name]));
    return (c) => ({
      ...entityBase('configs', c),
      configTypeId: c.configTypeId,
      configType: ref('config-types', c.configTypeId, names.get(c.configTypeId) ?? c.configTypeId),
      data: c.data,
    });
  };
}

export function registerConfigRoutes(app: Api, ctx: ControllerContext, service: ConfigService): void {
  const { store } = ctx;

  registerCrud<ConfigType>(app, ctx, {
    collection: 'config-types',
    tag: 'Config',
    repo: store.configTypes,
    schemas: {
      ...ConfigTypeBodies,
      detail: ConfigTypeDetail,
    },
    toWire: (t) => ({ ...entityBase('config-types', t), schema: t.schema, target: t.target }),
    build: (body, mode, existing, id, now) =>
      service.prepareType(readTypeDraft(body, mode, existing), existing, id, now),
    beforeDelete: (type) => service.beforeTypeDelete(type),
    afterWrite: () => service.written(),
  });

  const configWire = preparedWire<Config>('configs', configWireOf(store));
  registerCrud<Config>(app, ctx, {
    collection: 'configs',
    tag: 'Config',
    repo: store.configs,
    schemas: {
      ...ConfigBodies,
      detail: ConfigDetail,
    },
    prepare: configWire.prepare,
    toWire: configWire.toWire,
    build: (body, mode, existing, id, now) =>
      service.prepareConfig(readConfigDraft(body, mode, existing), existing, id, now),
    beforeDelete: (config) => service.beforeConfigDelete(config),
    afterWrite: () => service.written(),
  });
}
