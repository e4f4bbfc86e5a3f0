/**
 * Management CRUD for `config-types` and `configs`, OpenZiti's way of attaching data to services (`intercept.v1`
 * tells clients where to listen, `host.v1` tells the router where to dial). Config data is validated against
 * its type's JSON schema on every write; a type or config still in use cannot be deleted.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import type { Config, ConfigType } from '../../model.js';
import { ApiError, validationError } from '../../api-error.js';
import { entityBase } from '../../http/envelope.js';
import {
  ConfigBodies,
  ConfigDetail,
  ConfigTypeBodies,
  ConfigTypeDetail,
} from '../../../src/api/resources/configs.js';
import { registerCrud, pick } from '../../http/crud.js';
import { ref } from '../../http/refs.js';
import { preparedWire } from '../../http/prepared-wire.js';
import { isBuiltinConfigType } from '../../store/builtin-config-types.js';
import { assertConfigData, assertPortRanges, compileSchema } from './config-schemas.js';
import { servicesUsingConfig } from './service-configs.js';

const inUse = (what: string, users: readonly { name: string }[]) =>
  new ApiError(
    409,
    'CAN_NOT_DELETE_REFERENCED_ENTITY',
    `${what} is in use by ${users.map((u) => `'${u.name}'`).join(', ')}; remove it from them first`,
    { field: 'id', reason: 'referenced', value: users.map((u) => u.name) },
  );

export function registerConfigRoutes(app: Api, ctx: ControllerContext): void {
  const { store } = ctx;
  const changed = () => void ctx.events.emit('policy.changed');

  registerCrud<ConfigType>(app, ctx, {
    collection: 'config-types',
    tag: 'Config',
    repo: store.configTypes,
    schemas: {
      ...ConfigTypeBodies,
      detail: ConfigTypeDetail,
    },
    toWire: (t) => ({ ...entityBase('config-types', t), schema: t.schema, target: t.target }),
    build(body, mode, existing, id, now) {
      if (existing && isBuiltinConfigType(existing.id))
        throw new ApiError(
          409,
          'CAN_NOT_UPDATE_BUILTIN',
          `config type '${existing.name}' is built in and cannot change`,
        );
      const schema = pick(body, 'schema', mode, existing?.schema, {});
      compileSchema(schema);
      return {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        schema,
        target: pick(body, 'target', mode, existing?.target, 'service'),
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
    },
    async beforeDelete(type) {
      if (isBuiltinConfigType(type.id))
        throw new ApiError(409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', `config type '${type.name}' is built in`);
      const users = (await allConfigs(ctx)).filter((c) => c.configTypeId === type.id);
      if (users.length) throw inUse(`config type '${type.name}'`, users);
    },
    afterWrite: changed,
  });

  // A page of configs shows its types' names, read once for the page.
  const configWire = preparedWire<Config>('configs', async (page) => {
    const types = await store.configTypes.getMany([...new Set(page.map((c) => c.configTypeId))]);
    const names = new Map(types.map((t) => [t.id, t.name]));
    return (c) => ({
      ...entityBase('configs', c),
      configTypeId: c.configTypeId,
      configType: ref('config-types', c.configTypeId, names.get(c.configTypeId) ?? c.configTypeId),
      data: c.data,
    });
  });
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
    async build(body, mode, existing, id, now) {
      const asked = body.configTypeId as string | undefined;
      const type = asked === undefined ? undefined : await store.configTypes.getByIdOrName(asked);
      if (asked !== undefined && !type)
        throw validationError([
          { field: 'configTypeId', reason: 'no config type with this id or name', value: asked },
        ]);
      if (existing && type && type.id !== existing.configTypeId)
        throw validationError([
          {
            field: 'configTypeId',
            reason: "a config's type cannot change; create a new config",
            value: asked,
          },
        ]);
      const configType = type ?? (await store.configTypes.get(existing?.configTypeId ?? ''));
      if (!configType) throw validationError([{ field: 'configTypeId', reason: 'is required' }]);
      const data = pick(body, 'data', mode, existing?.data, {});
      assertConfigData(configType, data);
      assertPortRanges(configType.name, data);
      return {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        configTypeId: configType.id,
        data,
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
    },
    async beforeDelete(config) {
      const users = await servicesUsingConfig(store, config.id);
      if (users.length) throw inUse(`config '${config.name}'`, users);
    },
    afterWrite: changed,
  });
}

const allConfigs = async (ctx: ControllerContext) =>
  (await ctx.store.configs.list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 })).items;
