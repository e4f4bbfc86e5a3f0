/** A service's `host.v1` and `intercept.v1` data, for the router link and the agent-facing views. */
import type { HostV1, InterceptV1 } from '../../src/api/data-plane.js';
import type { Store } from '../store/repository.js';

function configData(store: Store, serviceId: string, typeName: string): Record<string, unknown> | null {
  const service = store.services.get(serviceId);
  if (!service) return null;
  for (const config of store.configs.getMany(service.configs ?? []))
    if (store.configTypes.get(config.configTypeId)?.name === typeName) return config.data;
  return null;
}

export const hostTargetOf = (store: Store, serviceId: string) =>
  configData(store, serviceId, 'host.v1') as HostV1 | null;

export const interceptOf = (store: Store, serviceId: string) =>
  configData(store, serviceId, 'intercept.v1') as InterceptV1 | null;
