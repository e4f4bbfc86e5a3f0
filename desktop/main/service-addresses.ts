/**
 * While the Postern service intercepts, where it reaches each service (`wiki.corp:443`), kept current from
 * its socket: the desktop shows those names instead of its own loopback ports. Ends with the connection.
 */
import { ServiceClient } from '../../src/agent/service/service-client.js';
import type { ServiceEntry } from '../../src/agent/service/service-protocol.js';

export async function followInterceptedAddresses(
  socketPath: string,
  onChange: (addresses: ReadonlyMap<string, string[]> | undefined) => void,
): Promise<() => void> {
  const client = await ServiceClient.connect(socketPath);
  const apply = (entries: readonly ServiceEntry[]) =>
    onChange(new Map(entries.map((entry) => [entry.name, entry.addresses])));
  const off = client.events.on((event) => {
    if (event.event === 'services') apply(event.data);
  });
  try {
    const status = await client.request('status');
    if (status.mode !== 'intercept') throw new Error('the service does not intercept');
    apply(status.services);
    await client.request('subscribe');
  } catch (error) {
    off();
    client.close();
    throw error;
  }
  return () => {
    off();
    client.close();
    onChange(undefined);
  };
}
