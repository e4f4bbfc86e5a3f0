/** A service's `host.v1` and `intercept.v1` data, for the router link and the agent-facing views. */
import type { HostV1, InterceptV1 } from '../../../src/api/data-plane.js';
import type { Service } from '../../model.js';
import type { Store } from '../../store/repository.js';

/**
 * Each service's config data of the type named `typeName` (null when it has none): the type and every
 * service's configs are read once for all the services, not per service.
 */
async function configDataOf(
  store: Store,
  services: readonly Service[],
  typeName: string,
): Promise<Map<string, Record<string, unknown> | null>> {
  const found = new Map<string, Record<string, unknown> | null>(services.map((s) => [s.id, null]));
  const configIds = [...new Set(services.flatMap((s) => s.configs ?? []))];
  if (configIds.length === 0) return found;
  const [type, configs] = await Promise.all([
    store.configTypes.getByName(typeName),
    store.configs.getMany(configIds),
  ]);
  if (!type) return found;
  const dataOf = new Map(configs.filter((c) => c.configTypeId === type.id).map((c) => [c.id, c.data]));
  for (const service of services) {
    // A service carries at most one config per type.
    const id = (service.configs ?? []).find((c) => dataOf.has(c));
    if (id !== undefined) found.set(service.id, dataOf.get(id)!);
  }
  return found;
}

async function configData(store: Store, serviceId: string, typeName: string) {
  const service = await store.services.get(serviceId);
  if (!service) return null;
  return (await configDataOf(store, [service], typeName)).get(service.id) ?? null;
}

export const hostTargetOf = async (store: Store, serviceId: string) =>
  (await configData(store, serviceId, 'host.v1')) as HostV1 | null;

/** Every service's `host.v1` data, by service id, in two reads (their configs, the type). */
export const hostTargetsOf = (store: Store, services: readonly Service[]) =>
  configDataOf(store, services, 'host.v1') as Promise<Map<string, HostV1 | null>>;

export const interceptOf = async (store: Store, serviceId: string) =>
  (await configData(store, serviceId, 'intercept.v1')) as InterceptV1 | null;
