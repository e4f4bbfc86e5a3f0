/**
 * Configs as services carry them: checking a service's `configs` on write (each exists, one per type), the
 * services using a config, and the `config` map a client asks for with `configTypes`.
 */
import type { FieldCause } from '../http/api-error.js';
import { at } from '../http/field-path.js';
import type { Service } from '../model.js';
import type { Store } from '../store/repository.js';

/** Config ids (or names) to ids; problems name `configs[i]`. */
export function resolveServiceConfigs(
  store: Store,
  wanted: readonly string[],
  problems: FieldCause[],
): string[] {
  const ids: string[] = [];
  const typeUsedBy = new Map<string, number>();
  wanted.forEach((idOrName, i) => {
    const config = store.configs.getByIdOrName(idOrName);
    if (!config)
      return void problems.push({
        field: at('configs', i),
        reason: 'no config with this id or name',
        value: idOrName,
      });
    const earlier = typeUsedBy.get(config.configTypeId);
    if (earlier !== undefined) {
      const type = store.configTypes.get(config.configTypeId)?.name ?? config.configTypeId;
      return void problems.push({
        field: at('configs', i),
        reason: `a service takes one config per type; configs[${earlier}] is already a ${type} config`,
        value: idOrName,
      });
    }
    typeUsedBy.set(config.configTypeId, i);
    ids.push(config.id);
  });
  return ids;
}

export function servicesUsingConfig(store: Store, configId: string): Service[] {
  return store.services
    .list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 })
    .items.filter((s) => (s.configs ?? []).includes(configId));
}

/**
 * The config type ids a client asked for: `configTypes` query values (repeated or comma-separated, ids or
 * names, `all` for every type) joined with those its API session was created with. `'all'` means every type.
 */
export function requestedConfigTypes(
  store: Store,
  fromQuery: unknown,
  fromSession: readonly string[],
): Set<string> | 'all' {
  const raw = [
    ...(Array.isArray(fromQuery) ? fromQuery : fromQuery === undefined ? [] : [fromQuery]),
    ...fromSession,
  ]
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (raw.includes('all')) return 'all';
  const ids = new Set<string>();
  for (const idOrName of raw) {
    const type = store.configTypes.getByIdOrName(idOrName);
    if (type) ids.add(type.id);
  }
  return ids;
}

/** `{ "<type name>": data }` for the service's configs of the requested types. */
export function configMapOf(
  store: Store,
  service: Service,
  types: Set<string> | 'all',
): Record<string, unknown> {
  const map: Record<string, unknown> = {};
  if (types !== 'all' && types.size === 0) return map;
  for (const config of store.configs.getMany(service.configs ?? [])) {
    if (types !== 'all' && !types.has(config.configTypeId)) continue;
    const type = store.configTypes.get(config.configTypeId);
    if (type) map[type.name] = config.data;
  }
  return map;
}
