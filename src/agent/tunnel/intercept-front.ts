/**
 * Intercept mode's front door: one listener (127.0.0.1 and ::1 on one port) that the system redirects every
 * intercepted connection to. Each connection's original destination (read from the kernel) says which
 * service it is for and what the program asked for: an address the agent's resolver handed out maps back to
 * the name, anything else is matched against the services' intercepted addresses and ports. A connection
 * that matches nothing (a stale rule, someone dialing the listener directly) is reset at once.
 */
import { lookup } from 'node:dns/promises';
import { createServer, isIP, type Server, type Socket } from 'node:net';
import type { DialTarget } from '../../api/data-plane.js';
import { originalDestination } from '../../common/native-net.js';
import type { InterceptedService, InterceptHost } from '../intercept/intercept-host.js';
import { matchIntercept } from './intercept.js';
import { closeServer, LoopbackBinder } from './loopback-listeners.js';

export type InterceptedConnection = (serviceId: string, socket: Socket, target: DialTarget) => void;

/** `wiki.corp:443`, `10.9.0.0/24:5432,8000-8100`: where a service is reached in intercept mode. */
export function interceptAddresses(service: InterceptedService): string[] {
  const ports = service.intercept.portRanges
    .map((r) => (r.low === r.high ? `${r.low}` : `${r.low}-${r.high}`))
    .join(',');
  return service.intercept.addresses.map((a) => `${a.includes(':') ? `[${a}]` : a}:${ports}`);
}

export class InterceptFront {
  private servers: Server[] = [];
  private starting: Promise<void> | undefined;
  private port = 0;
  private services: readonly InterceptedService[] = [];
  private bypass = new Set<string>();
  /** hosts whose addresses are in `bypass` already */
  private readonly exemptedHosts = new Set<string>();

  constructor(
    private readonly host: InterceptHost,
    private readonly onConnection: InterceptedConnection,
    private readonly warn: (message: string) => void,
  ) {}

  /** Opens the listener the system will redirect to (once; later calls wait for the first). */
  start(): Promise<void> {
    this.starting ??= this.listen();
    return this.starting;
  }

  private async listen(): Promise<void> {
    const bound = await new LoopbackBinder().listen({
      make: () => createServer((socket) => this.accept(socket)),
      port: 0,
      fixed: false,
      warn: this.warn,
    });
    this.servers = bound.servers;
    this.port = bound.port;
  }

  /** The services to intercept now; resolves once the system redirects exactly these. */
  async update(services: readonly InterceptedService[]): Promise<void> {
    // The agent may list its services before the tunnel's start finished: the rules need the listener's port.
    await this.start();
    this.services = services;
    await this.host.apply(services, this.port, [...this.bypass]);
  }

  /**
   * The agent's own destinations (its controller, its edge routers) are never redirected, even when an
   * intercepted subnet covers them: resolves once the system knows the new ones.
   */
  async exemptHosts(hosts: readonly string[]): Promise<void> {
    // Asked on every connection (its session's routers): only hosts not seen yet are looked up.
    const fresh = hosts.filter((h) => !this.exemptedHosts.has(h));
    if (fresh.length === 0) return;
    const found = await Promise.all(
      fresh.map(async (host) => ({ host, addresses: await addressesOf(host) })),
    );
    for (const { host, addresses } of found) if (addresses.length) this.exemptedHosts.add(host);
    await this.exempt(found.flatMap((f) => f.addresses));
  }

  private async exempt(addresses: readonly string[]): Promise<void> {
    await this.start();
    const fresh = addresses.filter((a) => !this.bypass.has(a));
    if (fresh.length === 0) return;
    for (const a of fresh) this.bypass.add(a);
    await this.host.apply(this.services, this.port, [...this.bypass]);
  }

  async stop(): Promise<void> {
    for (const server of this.servers) await closeServer(server);
    this.servers = [];
    await this.host.restore();
  }

  private accept(socket: Socket): void {
    socket.on('error', () => undefined);
    let destination;
    try {
      destination = originalDestination(socket);
    } catch (err) {
      this.warn(`an intercepted connection was reset: ${(err as Error).message}`);
      return void socket.resetAndDestroy();
    }
    const found = destination && this.route(destination.address, destination.port);
    if (!found) return void socket.resetAndDestroy();
    this.onConnection(found.serviceId, socket, found.target);
  }

  private route(address: string, port: number): { serviceId: string; target: DialTarget } | undefined {
    const named = this.host.nameFor(address);
    if (named) {
      // The whole name pool is redirected on every intercepted port, so the port is checked here: wiki.corp
      // on a port only another service intercepts is no connection to either.
      const service = this.services.find((s) => s.id === named.serviceId);
      if (!service || !matchIntercept(service.intercept, named.name, port)) return undefined;
      return { serviceId: service.id, target: { address: named.name, port } };
    }
    const service = this.services.find((s) => matchIntercept(s.intercept, address, port));
    return service && { serviceId: service.id, target: { address, port } };
  }
}

/** A host's IP addresses (a name resolved by the system; one that does not resolve has none). */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  return (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
}
