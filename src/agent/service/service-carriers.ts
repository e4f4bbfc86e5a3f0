/**
 * Which router carries each service, as the Postern service tells it. `status` reads the carriers file a
 * `run` of the same user writes (tunnel/carrier-state.ts); the service runs as root with a folder of its own
 * and writes none, so where it answers, it is asked instead.
 */
import type { ServiceCarrier } from '../tunnel/carrier-state.js';
import { ServiceClient } from './service-client.js';
import type { ModeReport } from './service-mode.js';

/** The service's carriers; undefined when no service answered (the mode line says why). */
export async function carriersOfService(
  socketPath: string,
  mode: ModeReport,
): Promise<ServiceCarrier[] | undefined> {
  if (mode.pid === undefined) return undefined;
  let client: ServiceClient | undefined;
  try {
    client = await ServiceClient.connect(socketPath);
    const status = await client.request('status');
    return status.services.map((s) => ({
      service: s.name,
      router: s.carriedBy ? { name: s.carriedBy } : null,
    }));
  } catch {
    return undefined;
  } finally {
    client?.close();
  }
}
