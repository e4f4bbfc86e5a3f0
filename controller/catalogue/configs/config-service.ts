/**
 * Config types' and configs' use cases, apart from HTTP: a type's schema compiles and a built-in type never
 * changes; a config's data fits its type's schema (and an `intercept.v1`'s port ranges run low to high), and
 * its type is fixed at create; neither is deleted while in use. Every write raises `policy.changed`
 * (published once its transaction commits): services carry configs, and clients and routers read them.
 */
import type { ControllerContext } from '../../platform/context.js';
import type { Config, ConfigType } from '../../model.js';
import { ApiError, validationError } from '../../api-error.js';
import { isBuiltinConfigType } from '../../store/builtin-config-types.js';
import { assertConfigData, assertPortRanges, compileSchema } from './config-schemas.js';
import { servicesUsingConfig } from './service-configs.js';

/** A config type as a write asks for it. */
export interface ConfigTypeDraft {
  name: string;
  schema: Record<string, unknown>;
  target: ConfigType['target'];
  tags: Record<string, unknown>;
}

/** A config as a write asks for it; `configTypeId` as sent (an id or a name), undefined keeps the stored one. */
export interface ConfigDraft {
  name: string;
  configTypeId: string | undefined;
  data: Record<string, unknown>;
  tags: Record<string, unknown>;
}

const inUse = (what: string, users: readonly { name: string }[]) =>
  new ApiError(
    409,
    'CAN_NOT_DELETE_REFERENCED_ENTITY',
    `${what} is in use by ${users.map((u) => `'${u.name}'`).join(', ')}; remove it from them first`,
    { field: 'id', reason: 'referenced', value: users.map((u) => u.name) },
  );

export class ConfigService {
  constructor(private readonly ctx: ControllerContext) {}

  /** After any write to config types or configs, in its transaction. */
  written(): void {
    this.ctx.events.emit('policy.changed');
  }

  /** Checks a config type write and answers the type to store (409 for a built-in one, 400 for a bad schema). */
  prepareType(draft: ConfigTypeDraft, existing: ConfigType | undefined, id: string, now: Date): ConfigType {
    if (existing && isBuiltinConfigType(existing.id))
      throw new ApiError(
        409,
        'CAN_NOT_UPDATE_BUILTIN',
        `config type '${existing.name}' is built in and cannot change`,
      );
    compileSchema(draft.schema);
    return {
      id,
      name: draft.name,
      schema: draft.schema,
      target: draft.target,
      tags: draft.tags,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  /** Before a type's delete, in its transaction: a built-in type and one configs use stay (409). */
  async beforeTypeDelete(type: ConfigType): Promise<void> {
    if (isBuiltinConfigType(type.id))
      throw new ApiError(409, 'CAN_NOT_DELETE_REFERENCED_ENTITY', `config type '${type.name}' is built in`);
    const all = (await this.ctx.store.configs.list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 })).items;
    const users = all.filter((c) => c.configTypeId === type.id);
    if (users.length) throw inUse(`config type '${type.name}'`, users);
  }

  /** Checks a config write against its type and answers the config to store; a 400 naming the field otherwise. */
  async prepareConfig(
    draft: ConfigDraft,
    existing: Config | undefined,
    id: string,
    now: Date,
  ): Promise<Config> {
    const { configTypes } = this.ctx.store;
    const asked = draft.configTypeId;
    const type = asked === undefined ? undefined : await configTypes.getByIdOrName(asked);
    if (asked !== undefined && !type)
      throw validationError([
        { field: 'configTypeId', reason: 'no config type with this id or name', value: asked },
      ]);
    if (existing && type && type.id !== existing.configTypeId)
      throw validationError([
        { field: 'configTypeId', reason: "a config's type cannot change; create a new config", value: asked },
      ]);
    const configType = type ?? (await configTypes.get(existing?.configTypeId ?? ''));
    if (!configType) throw validationError([{ field: 'configTypeId', reason: 'is required' }]);
    assertConfigData(configType, draft.data);
    assertPortRanges(configType.name, draft.data);
    return {
      id,
      name: draft.name,
      configTypeId: configType.id,
      data: draft.data,
      tags: draft.tags,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  /** Before a config's delete, in its transaction: one services carry stays (409). */
  async beforeConfigDelete(config: Config): Promise<void> {
    const users = await servicesUsingConfig(this.ctx.store, config.id);
    if (users.length) throw inUse(`config '${config.name}'`, users);
  }
}
