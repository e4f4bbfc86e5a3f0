/**
 * Proxy mode: for each service the user may dial that has an `intercept.v1` config, a listener on loopback
 * (127.0.0.1 and ::1 on one port, or neither: loopback-listeners.ts) at the intercepted port when it is 1024
 * or above and free, else the port used last (remembered across restarts) or a free one, the move said with
 * the port asked, the port used and who holds the asked one; plus one SOCKS5 listener that routes
 * `name:port` to the service whose intercept matches. A connection gets (or reuses) a Dial session and a
 * stream through an edge router; a refusal says why, answers an HTTP client with a 403 page saying the same
 * (refusal-page.ts) and closes anything else; a revocation cuts it. Whatever goes wrong
 * with one local connection closes that connection only.
 */
import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { INTERCEPT_V1, type DialTarget, type InterceptV1 } from '../../api/data-plane.js';
import type { ServiceDetail, SessionDetail } from '../../api/services.js';
import { isControllerError } from '../../controller-client/controller-error.js';
import { referenceOfCause } from '../../api/refusal-reference.js';
import type { InterceptHost } from '../intercept/intercept-host.js';
import { interceptedTarget, matchIntercept } from './intercept.js';
import { InterceptFront, interceptAddresses } from './intercept-front.js';
import { closeServer, LoopbackBinder, type LoopbackListeners } from './loopback-listeners.js';
import { PortMemory } from './port-memory.js';
import { RouterConnector, type Carrier } from './router-connector.js';
import { answerRefusal, type RefusalReason } from './refusal-page.js';
import { createSocksServer, pipeBoth } from './socks5-server.js';
import type { TunnelEvent } from './tunnel-events.js';

export interface TunnelOptions {
  createSession(serviceId: string): Promise<SessionDetail>;
  /** the checks that block a service and their fixes (the agent re-reads its services to give current ones) */
  reasonsFor(serviceId: string): Promise<RefusalReason[]>;
  /**
   * the controller's reference for the service's refusal (`7K2Q-PX`) as last listed (read after `reasonsFor`);
   * a refused session request's own reference comes first
   */
  referenceFor?(serviceId: string): string | undefined;
  /** JSON file remembering chosen ports; none: not remembered */
  portsFile?: string;
  /** SOCKS5 port: undefined tries 1080 then any free one; 0 any free one; null: no SOCKS5 listener */
  socksPort?: number | null;
  /**
   * Intercept mode: the system redirects each service's real addresses to the agent (the host does that);
   * `exempt` are the agent's own destinations (its controller) that must never be redirected. Absent: proxy
   * mode, a loopback listener per service.
   */
  intercept?: { host: InterceptHost; exempt: readonly string[] };
}

interface Published {
  service: ServiceDetail;
  intercept: InterceptV1;
  servers: Server[];
  addresses: string[];
}

const SOCKS_DEFAULT = 1080;

/** Why a connection was not opened, after the refusal event was emitted, with the reference to quote. */
interface Refused {
  refused: RefusalReason[];
  reference?: string;
}

export class TunnelManager {
  readonly events = new EventEmitter<{ event: [TunnelEvent] }>();
  private readonly published = new Map<string, Published>();
  private readonly sessions = new Map<string, Promise<SessionDetail>>();
  private readonly connector = new RouterConnector();
  /** service id → the edge router that carried its latest connection */
  private readonly carriers = new Map<string, Carrier>();
  private readonly ports: PortMemory;
  private readonly loopback = new LoopbackBinder();
  private socks: Server[] | undefined;
  private readonly front: InterceptFront | undefined;
  private socksAddress: string | undefined;
  private stopped = false;
  /** Updates run one after another, so two service lists never race over the same ports. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: TunnelOptions) {
    this.ports = new PortMemory(options.portsFile);
    if (options.intercept)
      this.front = new InterceptFront(
        options.intercept.host,
        (serviceId, socket, target) => {
          const entry = this.published.get(serviceId);
          if (entry) this.carry(entry.service, socket, target);
          else socket.resetAndDestroy();
        },
        (message) => this.emit({ type: 'warning', service: 'intercept', message }),
      );
  }

  /** Intercept mode (programs reach services at their real addresses) or proxy mode (loopback ports, SOCKS5). */
  get mode(): 'intercept' | 'proxy' {
    return this.front ? 'intercept' : 'proxy';
  }

  /** Opens the SOCKS5 listener; rejects when the port the user asked for (`socksPort`) is not free. */
  async start(): Promise<void> {
    if (this.front) {
      await this.front.start();
      await this.front.exemptHosts(this.options.intercept?.exempt ?? []);
    }
    if (this.options.socksPort === null || this.socks) return;
    const asked = this.options.socksPort;
    const { servers, port, addresses, moved } = await this.loopback.listen({
      make: () =>
        createSocksServer(
          (host, p) => this.routeSocks(host, p),
          (err) => this.connectionFailed('socks5', err),
        ),
      port: asked ?? this.ports.get('socks5') ?? SOCKS_DEFAULT,
      fixed: asked !== undefined && asked !== 0,
      warn: (message) => this.emit({ type: 'warning', service: 'socks5', message }),
    });
    this.socks = servers;
    this.socksAddress = addresses[0];
    this.reportMove('socks5', moved, port);
    if (asked === undefined) this.ports.set('socks5', port);
    for (const address of addresses) this.emit({ type: 'listening', service: 'socks5', address });
  }

  /** The services as last listed: open listeners for new ones, close those gone. */
  update(services: readonly ServiceDetail[]): Promise<void> {
    this.queue = this.queue
      .then(() => this.apply(services))
      .catch((err: unknown) => this.emit({ type: 'error', message: (err as Error).message }));
    return this.queue;
  }

  /** Sessions the controller removed: the next connection asks for a new one. */
  forgetSessions(sessionIds: readonly string[]): void {
    const gone = new Set(sessionIds);
    for (const [serviceId, pending] of this.sessions)
      void pending.then(
        (s) => gone.has(s.id) && this.sessions.delete(serviceId),
        () => undefined,
      );
  }

  /** service name → where programs reach it: local addresses (`127.0.0.1:8443`) or, intercepting, `wiki.corp:443` */
  localAddresses(): Map<string, string[]> {
    return new Map([...this.published.values()].map((p) => [p.service.name, p.addresses]));
  }

  /** service name → the addresses it is intercepted at (empty in proxy mode) */
  interceptAddresses(): Map<string, string[]> {
    return this.front ? this.localAddresses() : new Map();
  }

  /** service name → the edge router that carried its latest connection (none yet: absent) */
  carriedBy(): Map<string, Carrier> {
    const named = new Map<string, Carrier>();
    for (const [id, carrier] of this.carriers) {
      const service = this.published.get(id)?.service;
      if (service) named.set(service.name, carrier);
    }
    return named;
  }

  get socksListening(): string | undefined {
    return this.socksAddress;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
    for (const id of [...this.published.keys()]) await this.unpublish(id);
    for (const server of this.socks ?? []) await closeServer(server);
    this.socks = undefined;
    await this.front?.stop();
    this.connector.close();
  }

  private async apply(services: readonly ServiceDetail[]): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map<string, { service: ServiceDetail; intercept: InterceptV1 }>();
    for (const service of services) {
      const intercept = service.config?.[INTERCEPT_V1] as InterceptV1 | undefined;
      const dial = !service.permissions || service.permissions.includes('Dial');
      if (intercept && dial && intercept.protocols?.includes('tcp'))
        wanted.set(service.id, { service, intercept });
    }
    if (this.front) return this.intercept(wanted);
    for (const id of [...this.published.keys()]) if (!wanted.has(id)) await this.unpublish(id);
    for (const [id, { service, intercept }] of wanted) {
      const existing = this.published.get(id);
      if (existing) {
        existing.service = service;
        existing.intercept = intercept;
      } else await this.publish(service, intercept);
    }
  }

  /**
   * Intercept mode: the system is told the whole set at once (one atomic change), then each service's
   * addresses are announced, those gone said closed.
   */
  private async intercept(
    wanted: Map<string, { service: ServiceDetail; intercept: InterceptV1 }>,
  ): Promise<void> {
    const services = [...wanted.values()].map(({ service, intercept }) => ({
      id: service.id,
      name: service.name,
      intercept,
    }));
    try {
      await this.front!.update(services);
    } catch (err) {
      this.emit({ type: 'error', service: 'intercept', message: (err as Error).message });
      return;
    }
    for (const [id, entry] of [...this.published])
      if (!wanted.has(id)) {
        this.published.delete(id);
        this.sessions.delete(id);
        this.carriers.delete(id);
        for (const address of entry.addresses)
          this.emit({ type: 'closed', service: entry.service.name, address });
      }
    for (const intercepted of services) {
      const addresses = interceptAddresses(intercepted);
      const { service, intercept } = wanted.get(intercepted.id)!;
      const before = this.published.get(intercepted.id);
      this.published.set(intercepted.id, { service, intercept, servers: [], addresses });
      for (const address of before?.addresses ?? [])
        if (!addresses.includes(address)) this.emit({ type: 'closed', service: service.name, address });
      for (const address of addresses)
        if (!before?.addresses.includes(address))
          this.emit({ type: 'intercepting', service: service.name, address });
    }
  }

  private async publish(service: ServiceDetail, intercept: InterceptV1): Promise<void> {
    const intercepted = intercept.portRanges[0]?.low ?? 0;
    // The intercepted port first, every time: a port moved once (taken then) goes back when it is free again.
    const asked = intercepted >= 1024 ? intercepted : 0;
    const remembered = this.ports.get(service.id);
    const entry: Published = { service, intercept, servers: [], addresses: [] };
    let listeners: LoopbackListeners;
    try {
      listeners = await this.loopback.listen({
        make: () => createServer((socket) => this.carry(entry.service, socket)),
        port: asked || (remembered ?? 0),
        fallback: asked ? remembered : undefined,
        fixed: false,
        warn: (message) => this.emit({ type: 'warning', service: service.name, message }),
      });
    } catch (err) {
      this.emit({ type: 'error', service: service.name, message: (err as Error).message });
      return;
    }
    entry.servers = listeners.servers;
    entry.addresses = listeners.addresses;
    // Published before it is announced: a listener redrawing on 'listening' reads localAddresses() at once
    // (the desktop's service list did, and showed no address until some later change redrew it).
    this.ports.set(service.id, listeners.port);
    this.published.set(service.id, entry);
    this.reportMove(service.name, listeners.moved, listeners.port);
    for (const address of entry.addresses) this.emit({ type: 'listening', service: service.name, address });
  }

  private async unpublish(serviceId: string): Promise<void> {
    const entry = this.published.get(serviceId);
    if (!entry) return;
    this.published.delete(serviceId);
    this.sessions.delete(serviceId);
    this.carriers.delete(serviceId);
    for (const server of entry.servers) await closeServer(server);
    for (const address of entry.addresses)
      this.emit({ type: 'closed', service: entry.service.name, address });
  }

  private async routeSocks(host: string, port: number): Promise<Duplex | null> {
    const match = [...this.published.values()].find((p) => matchIntercept(p.intercept, host, port));
    if (!match) return null;
    const opened = await this.open(match.service, { address: host, port });
    return opened && 'refused' in opened ? null : opened;
  }

  /**
   * One local connection: a stream for it, or the refusal in the client's language, or it is closed; a failure
   * here ends this connection only.
   */
  private carry(service: ServiceDetail, socket: Socket, target?: DialTarget): void {
    socket.on('error', () => undefined);
    socket.pause();
    let opened: Duplex | null = null;
    void this.open(service, target ?? interceptedTarget(this.published.get(service.id)?.intercept))
      .then((result) => {
        if (result && 'refused' in result)
          return answerRefusal(socket, service.name, result.refused, result.reference);
        const stream = result;
        opened = stream;
        if (!stream) return void socket.destroy();
        if (socket.destroyed) return void stream.destroy();
        pipeBoth(socket, stream, () => this.emit({ type: 'revoked', service: service.name }));
      })
      .catch((err: unknown) => {
        socket.destroy();
        opened?.destroy();
        this.connectionFailed(service.name, err as Error);
      });
  }

  /** Not bad input (that is refused quietly) but a fault: worth a line, and it cost only that connection. */
  private connectionFailed(service: string, err: Error): void {
    this.emit({
      type: 'error',
      service,
      message: `a local connection failed and was closed: ${err.message}`,
    });
  }

  /**
   * A stream to the service, or why it was refused, or null after a fault; each said as an event. One retry
   * with a fresh session on INVALID_SESSION, and on no router taking it (503): the session's list of routers
   * and whether each is online were the controller's when it was made, and a router may have moved, come back
   * or been added since. `target`: the destination the program asked for (router-connector).
   */
  private async open(
    service: ServiceDetail,
    target?: DialTarget,
    retry = true,
  ): Promise<Duplex | Refused | null> {
    let session: SessionDetail;
    try {
      session = await this.session(service.id);
    } catch (err) {
      this.sessions.delete(service.id);
      if (isControllerError(err) && err.status === 409) {
        const reasons = await this.options.reasonsFor(service.id).catch(() => []);
        const reference = referenceOfCause(err.apiCause) ?? this.options.referenceFor?.(service.id);
        return this.refuse(service, reasons.length ? reasons : [{ fix: err.message }], reference);
      }
      this.emit({ type: 'error', service: service.name, message: (err as Error).message });
      return null;
    }
    // Intercepting: the edge routers' own addresses must not be redirected back to the agent.
    await this.front?.exemptHosts(routerHosts(session));
    const result = await this.connector.dial(
      session.edgeRouters ?? [],
      session.token ?? '',
      service.id,
      target,
    );
    if ('stream' in result) {
      this.noteCarrier(service, result.router);
      return result.stream;
    }
    const stale = result.error === 'INVALID_SESSION' || result.status === 503;
    if (stale) this.sessions.delete(service.id);
    if (stale && retry) return this.open(service, target, false);
    const revoked = result.error === 'INVALID_SESSION';
    const reasons = revoked ? await this.options.reasonsFor(service.id).catch(() => []) : [];
    return this.refuse(
      service,
      reasons.length
        ? reasons
        : [{ fix: result.message ?? `the edge router refused the connection (${result.error})` }],
      revoked ? this.options.referenceFor?.(service.id) : undefined,
    );
  }

  /** A change of router is said once, when the first connection through the new one opens. */
  private noteCarrier(service: ServiceDetail, router: Carrier): void {
    const before = this.carriers.get(service.id);
    if (before?.url === router.url && before.name === router.name) return;
    if (!this.published.has(service.id)) return;
    this.carriers.set(service.id, router);
    this.emit({
      type: 'carried',
      service: service.name,
      router: router.name,
      url: router.url,
      ...(before ? { previous: before.name } : {}),
    });
  }

  private refuse(service: ServiceDetail, reasons: RefusalReason[], reference?: string): Refused {
    this.emit({
      type: 'refused',
      service: service.name,
      reasons: reasons.map((r) => r.fix),
      ...(reference ? { reference } : {}),
    });
    return { refused: reasons, ...(reference ? { reference } : {}) };
  }

  private session(serviceId: string): Promise<SessionDetail> {
    let pending = this.sessions.get(serviceId);
    if (!pending) {
      pending = this.options.createSession(serviceId);
      this.sessions.set(serviceId, pending);
    }
    return pending;
  }

  /** A listener not on the port it wanted is never a quiet swap: the port asked, the port used, and why. */
  private reportMove(service: string, moved: LoopbackListeners['moved'], port: number): void {
    if (!moved) return;
    this.emit({
      type: 'warning',
      service,
      message: `${moved.reason}; listening on port ${port} instead of ${moved.from}`,
      askedPort: moved.from,
      port,
    });
  }

  private emit(event: TunnelEvent): void {
    this.events.emit('event', event);
  }
}

/** The hosts of a session's edge routers' URLs (`tls://router.corp:3022` → `router.corp`). */
function routerHosts(session: SessionDetail): string[] {
  const hosts: string[] = [];
  for (const router of session.edgeRouters ?? [])
    for (const url of Object.values(router.urls ?? {})) {
      try {
        hosts.push(new URL(url).hostname.replace(/^\[|\]$/g, ''));
      } catch {
        // not a URL: nothing to exempt
      }
    }
  return hosts;
}
