/**
 * Which edge router carries each service, kept by the running agent (`run`, the Postern service) in a small
 * file beside tunnel-ports.json so that `status`, a process of its own, can say it. The file names the
 * process that wrote it: one left behind by an agent that is gone says nothing.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TunnelManager } from './tunnel-manager.js';

export const CARRIERS_FILE = 'tunnel-carriers.json';

/** A service the tunnel serves, and the router that carried its latest connection (null: none yet). */
export interface ServiceCarrier {
  service: string;
  /** `url` is absent where the Postern service told it (it says the router's name only) */
  router: { name: string; url?: string } | null;
}

interface CarrierFile {
  pid: number;
  services: ServiceCarrier[];
}

/** The carriers file beside a settings file (agent.json) or the ports file. */
export function carriersFileBeside(file: string): string {
  return join(dirname(file), CARRIERS_FILE);
}

/** Keeps `path` current while `tunnel` runs; answers the stop, which removes the file. */
export function keepCarriersFile(tunnel: TunnelManager, path: string): () => void {
  const write = () => {
    const carried = tunnel.carriedBy();
    const services = [...tunnel.localAddresses().keys()].map((service) => ({
      service,
      router: carried.get(service) ?? null,
    }));
    const body: CarrierFile = { pid: process.pid, services };
    try {
      // Written whole, then renamed: a reader never sees half a file.
      writeFileSync(`${path}.tmp`, `${JSON.stringify(body)}\n`, { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
    } catch {
      // Only `status` reads it; a directory that cannot be written costs that line, not the tunnel.
    }
  };
  const onEvent = (event: { type: string }) => {
    if (['listening', 'intercepting', 'closed', 'carried'].includes(event.type)) write();
  };
  tunnel.events.on('event', onEvent);
  write();
  return () => {
    tunnel.events.off('event', onEvent);
    rmSync(path, { force: true });
  };
}

/** The carriers a running agent wrote; undefined when no agent that is still running wrote them. */
export function readCarriers(path: string): ServiceCarrier[] | undefined {
  let parsed: Partial<CarrierFile>;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<CarrierFile>;
  } catch {
    return undefined;
  }
  if (typeof parsed.pid !== 'number' || !Array.isArray(parsed.services) || !isRunning(parsed.pid))
    return undefined;
  return parsed.services.filter(
    (s): s is ServiceCarrier =>
      typeof s?.service === 'string' &&
      (s.router === null || (typeof s.router?.name === 'string' && typeof s.router.url === 'string')),
  );
}

/** Lines for `status`: each tunnelled service and the router carrying it. */
export function carrierLines(carriers: readonly ServiceCarrier[] | undefined): string {
  if (!carriers)
    return 'routers     no agent running here (`run` or the Postern service carries the services)';
  if (carriers.length === 0) return 'routers     no service tunnelled';
  return carriers
    .map(
      (c, i) =>
        `${i === 0 ? 'routers    ' : '           '} ${c.service}: ${c.router ? `via ${c.router.name}${c.router.url ? ` (${c.router.url})` : ''}` : 'not connected yet'}`,
    )
    .join('\n');
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user (the Postern service).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
