/**
 * Configs as services carry them: checking a service's `configs` on write (each exists, one per type), the
 * services using a config, and the `config` map a client asks for with `configTypes`.
 */
import type { FieldCause } from '../../api-error.js';
import { at } from '../../field-path.js';
import type { PolicyType, Service } from '../../model.js';
import type { Store } from '../../store/repository.js';

/** Config ids (or names) to ids; problems name `configs[i]`. */
export async function resolveServiceConfigs(
  store: Store,
  wanted: readonly string[],
  problems: FieldCause[],
): Promise<string[]> {
  const configs = await Promise.all(wanted.map((idOrName) => store.configs.getByIdOrName(idOrName)));
  const ids: string[] = [];
  const typeUsedBy = new Map<string, number>();
  for (const [i, config] of configs.entries()) {
    if (!config) {
      problems.push({
        field: at('configs', i),
        reason: 'no config with this id or name',
        value: wanted[i],
      });
      continue;
    }
    const earlier = typeUsedBy.get(config.configTypeId);
    if (earlier !== undefined) {
      const type = (await store.configTypes.get(config.configTypeId))?.name ?? config.configTypeId;
      problems.push({
        field: at('configs', i),
        reason: `a service takes one config per type; configs[${earlier}] is already a ${type} config`,
        value: wanted[i],
      });
      continue;
    }
    typeUsedBy.set(config.configTypeId, i);
    ids.push(config.id);
  }
  return ids;
}

export async function servicesUsingConfig(store: Store, configId: string): Promise<Service[]> {
  return (await store.services.list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 })).items.filter((s) =>
    (s.configs ?? []).includes(configId),
  );
}

/**
 * The config type ids a client asked for: `configTypes` query values (repeated or comma-separated, ids or
 * names, `all` for every type) joined with those its API session was created with. `'all'` means every type.
 */
export async function requestedConfigTypes(
  store: Store,
  fromQuery: unknown,
  fromSession: readonly string[],
): Promise<Set<string> | 'all'> {
  const raw = [
    ...(Array.isArray(fromQuery) ? fromQuery : fromQuery === undefined ? [] : [fromQuery]),
    ...fromSession,
  ]
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (raw.includes('all')) return 'all';
  const types = await Promise.all(
    [...new Set(raw)].map((idOrName) => store.configTypes.getByIdOrName(idOrName)),
  );
  return new Set(types.filter((t) => t !== undefined).map((t) => t.id));
}

/**
 * OpenZiti's config types that describe one side of a service: the hosting side's (where the backend is, which
 * only the identity that hosts it needs) and the dialling side's (where a client intercepts it). A config of
 * a type in neither list (an administrator's own type) goes to any identity that may use the service.
 */
const HOSTING_CONFIG_TYPES: ReadonlySet<string> = new Set(['host.v1', 'host.v2', 'ziti-tunneler-server.v1']);
const DIALLING_CONFIG_TYPES: ReadonlySet<string> = new Set(['intercept.v1', 'ziti-tunneler-client.v1']);

/**
 * Whether a caller with these permissions on a service is shown its config of this type: hosting configs
 * (the backend's internal address) only with Bind, intercept configs only with Dial. A Dial-only client that
 * asks for `host.v1` gets nothing for it, as if the service had none; it has no use for the address.
 */
export function configTypeVisibleTo(typeName: string, permissions: readonly PolicyType[]): boolean {
  if (HOSTING_CONFIG_TYPES.has(typeName)) return permissions.includes('Bind');
  if (DIALLING_CONFIG_TYPES.has(typeName)) return permissions.includes('Dial');
  return permissions.length > 0;
}

/** A service a client asks about, with its permissions on it (from the policies that grant it). */
export interface PermittedService {
  service: Service;
  permissions: readonly PolicyType[];
}

/**
 * `{ "<type name>": data }` for each service's configs of the requested types that the caller's permissions
 * on it call for (`configTypeVisibleTo`), by service id: the configs and their types are read once for all
 * the services (a page of them), not per service.
 */
export async function configMapsOf(
  store: Store,
  permitted: readonly PermittedService[],
  types: Set<string> | 'all',
): Promise<Map<string, Record<string, unknown>>> {
  const services = permitted.map((p) => p.service);
  const maps = new Map<string, Record<string, unknown>>(services.map((s) => [s.id, {}]));
  if (types !== 'all' && types.size === 0) return maps;
  const configs = await store.configs.getMany([...new Set(services.flatMap((s) => s.configs ?? []))]);
  const wanted = configs.filter((c) => types === 'all' || types.has(c.configTypeId));
  if (wanted.length === 0) return maps;
  const typeNames = new Map(
    (await store.configTypes.getMany([...new Set(wanted.map((c) => c.configTypeId))])).map((t) => [
      t.id,
      t.name,
    ]),
  );
  const byId = new Map(wanted.map((c) => [c.id, c]));
  for (const { service, permissions } of permitted) {
    const map = maps.get(service.id)!;
    for (const id of service.configs ?? []) {
      const config = byId.get(id);
      const name = config && typeNames.get(config.configTypeId);
      if (name !== undefined && configTypeVisibleTo(name, permissions)) map[name] = config!.data;
    }
  }
  return maps;
}
