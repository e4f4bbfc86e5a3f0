/**
 * A local listener on both loopback addresses at one port, or on neither. A client told `localhost:8443` may
 * try ::1 first; if the agent held only 127.0.0.1:8443, whoever else held [::1]:8443 (any local user can
 * bind it) would receive that client's traffic. So when ::1 is taken at the port 127.0.0.1 got, the agent
 * lets go of 127.0.0.1 too and moves to another port, or, when the user asked for that port, refuses with
 * the port and, where the system says, who holds it. A machine without an IPv6 loopback at all
 * (EADDRNOTAVAIL) has no ::1 to squat: IPv4 alone is fine there, said once.
 */
import type { Server } from 'node:net';
import { describePortHolder } from './port-holder.js';

export const IPV4_LOOPBACK = '127.0.0.1';
export const IPV6_LOOPBACK = '::1';

/**
 * Ports tried when the port a service wanted is not free on both addresses: the wanted one, then free ones
 * the system picks. Each of those is free on 127.0.0.1; only a squatter on ::1 following the agent's choices
 * could make them all fail, and then the agent stops trying rather than chase it.
 */
export const PORT_ATTEMPTS = 5;

/** The errors that mean this machine has no ::1 to listen on (no IPv6, or IPv6 turned off). */
const NO_IPV6 = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT']);

export interface LoopbackListeners {
  servers: Server[];
  port: number;
  /** `127.0.0.1:8443`, `[::1]:8443` */
  addresses: string[];
  /** the port wanted was not free: which it was and why (`127.0.0.1:8443 is taken by pid 42 (nc), …`) */
  moved?: { from: number; reason: string };
}

export interface ListenRequest {
  /** makes one server; called once per address tried */
  make: () => Server;
  /** the port wanted; 0: any */
  port: number;
  /** tried second when `port` is not free (the one used last time); then free ones the system picks */
  fallback?: number;
  /** the user asked for exactly this port: refuse rather than move */
  fixed: boolean;
  /** a warning for the user (the port moved, a squatter, no IPv6 loopback) */
  warn: (message: string) => void;
}

export class LoopbackBinder {
  /** ::1 turned out not to exist here: IPv4 alone from then on, and the notice given once */
  private ipv6Missing = false;

  /** `ipv6` is ::1 but for a test that needs an address this machine lacks. */
  constructor(private readonly ipv6 = IPV6_LOOPBACK) {}

  async listen(request: ListenRequest): Promise<LoopbackListeners> {
    const { make, fixed, warn } = request;
    // Why the port wanted could not be had: said by the caller once the port used is known.
    let moved: LoopbackListeners['moved'];
    const refused = (refusal: string, next: string) => {
      if (fixed) throw new Error(`${refusal}; choose another port`);
      if (!moved && request.port !== 0) moved = { from: request.port, reason: refusal };
      else warn(`${refusal}; ${next}`);
    };
    const fallback = request.fallback && request.fallback !== request.port ? request.fallback : 0;
    for (let attempt = 0; attempt < (fixed ? 1 : PORT_ATTEMPTS); attempt++) {
      const wanted = attempt === 0 ? request.port : attempt === 1 ? fallback : 0;
      const v4 = make();
      let port: number;
      try {
        port = await listenOn(v4, IPV4_LOOPBACK, wanted);
      } catch (err) {
        if (wanted === 0) throw err;
        refused(await refusalOf(err, IPV4_LOOPBACK, wanted), 'using another port');
        continue;
      }
      if (this.ipv6Missing) return this.bound(warn, port, [v4], moved);
      const v6 = make();
      try {
        await listenOn(v6, this.ipv6, port);
        return this.bound(warn, port, [v4, v6], moved);
      } catch (err) {
        if (NO_IPV6.has((err as NodeJS.ErrnoException).code ?? '')) {
          this.ipv6Missing = true;
          warn(`this machine has no IPv6 loopback (${this.ipv6}): listening on ${IPV4_LOOPBACK} only`);
          return this.bound(warn, port, [v4], moved);
        }
        await closeServer(v4);
        const refusal = `${await refusalOf(err, this.ipv6, port)}, so ${IPV4_LOOPBACK}:${port} was let go as well`;
        refused(refusal, 'trying another port');
      }
    }
    if (moved) warn(`${moved.reason}; no other port was free either`);
    throw new Error(
      `no port was free on both ${IPV4_LOOPBACK} and ${this.ipv6} in ${PORT_ATTEMPTS} tries; not listening`,
    );
  }

  /** Listening: from here a server's own 'error' events are warnings, never an unhandled event that ends the agent. */
  private bound(
    warn: (message: string) => void,
    port: number,
    servers: Server[],
    moved: LoopbackListeners['moved'],
  ): LoopbackListeners {
    const addresses = servers.map((_, i) =>
      i === 0 ? `${IPV4_LOOPBACK}:${port}` : `[${this.ipv6}]:${port}`,
    );
    servers.forEach((server, i) => server.on('error', (err) => warn(`${addresses[i]}: ${err.message}`)));
    return { servers, port, addresses, ...(moved && moved.from !== port ? { moved } : {}) };
  }
}

/** `[::1]:8443 is taken by pid 4242 (nc), user mallory (uid 1001)`, or why else it could not be listened on. */
async function refusalOf(err: unknown, host: string, port: number): Promise<string> {
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE')
    return `${address} cannot be listened on (${(err as Error).message})`;
  const holder = await describePortHolder(host, port);
  return `${address} is taken${holder ? ` by ${holder}` : ''}`;
}

export function listenOn(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve((server.address() as { port: number }).port);
    });
  });
}

export const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
