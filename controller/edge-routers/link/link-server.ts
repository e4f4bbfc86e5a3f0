/**
 * The controller's end of the router links: a WebSocket on the controller's own HTTP server
 * (`ROUTER_LINK_PATH`), opened by each edge router with its id and secret. A router gets a snapshot of the
 * sessions it may carry and the services' `host.v1` targets when it links, then every change as it is
 * published after commit (see `router-feed.ts`). Routers are not identities: this path is outside both APIs.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  LINK_CLOSE_NOT_ALLOWED,
  ROUTER_ID_HEADER,
  ROUTER_LINK_PATH,
  type ControllerToRouter,
  type RouterToController,
} from '../../../src/api/data-plane.js';
import type { ControllerContext } from '../../platform/context.js';
import { parseRouterFrame } from './link-messages.js';
import type { RouterDirectory } from './router-directory.js';
import { recordRouterLink } from '../../audit/router-links.js';

/** Pings keep idle links (and the NATs between) alive and find dead ones: two missed answers end a link. */
const PING_INTERVAL_MS = 10_000;
/**
 * The WebSocket's own ceiling on one frame; the library ends the link past it, so it sits far above what a
 * router sends (a hello and lookups of a few hundred bytes) and above MAX_ROUTER_MESSAGE_CHARS, which
 * ignores a frame without ending the link. Only a broken router reaches this.
 */
const MAX_FRAME_BYTES = 1024 * 1024;
/** Ignored frames are logged at most this often per link, with how many there were. */
const IGNORED_LOG_INTERVAL_MS = 10_000;

export interface RouterLink {
  readonly routerId: string;
  send(message: ControllerToRouter): void;
  close(code?: number, reason?: string): void;
}

/** What a link's events start; a handler's failure (thrown or rejected) is logged, the link stays up. */
export interface LinkHandlers {
  /** a router linked: send it its snapshot */
  opened(link: RouterLink): void | Promise<void>;
  message(link: RouterLink, message: RouterToController): void | Promise<void>;
  closed(link: RouterLink): void | Promise<void>;
}

export class RouterLinkServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly links = new Map<string, { link: RouterLink; socket: WebSocket; alive: boolean }>();
  private readonly pinger: NodeJS.Timeout;
  /** `dropUnauthorized` passes started: a router authenticated before one may have been linked after it */
  private drops = 0;
  /** set by close(): the links it ends are not the routers' doing, and the store is about to close */
  private closing = false;

  constructor(
    server: Server,
    private readonly ctx: ControllerContext,
    private readonly directory: RouterDirectory,
    private readonly handlers: LinkHandlers,
  ) {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.upgrade(request, socket, head).catch((err: unknown) => {
        this.ctx.log.error({ err }, 'router link upgrade failed');
        socket.destroy();
      });
    });
    this.pinger = setInterval(() => this.pingAll(), PING_INTERVAL_MS);
    this.pinger.unref();
  }

  isOnline(routerId: string): boolean {
    return this.links.has(routerId);
  }

  all(): RouterLink[] {
    return [...this.links.values()].map((l) => l.link);
  }

  /** Ends the links of routers that were deleted, disabled or re-enrolled (one read for every link). */
  async dropUnauthorized(): Promise<void> {
    this.drops++;
    const links = this.all();
    const allowed = await this.directory.linkable(links.map((l) => l.routerId));
    for (const link of links)
      if (!allowed.has(link.routerId)) link.close(LINK_CLOSE_NOT_ALLOWED, 'router no longer allowed');
  }

  close(): void {
    this.closing = true;
    clearInterval(this.pinger);
    for (const { socket } of this.links.values()) socket.terminate();
    this.links.clear();
    this.wss.close();
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== ROUTER_LINK_PATH) return void refuse(socket, 404, 'Not Found');
    const routerId = String(request.headers[ROUTER_ID_HEADER] ?? '');
    const auth = String(request.headers.authorization ?? '');
    const secret = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '';
    const drops = this.drops;
    const router = routerId && secret ? await this.directory.authenticate(routerId, secret) : undefined;
    // The router may have hung up while it was looked up.
    if (socket.destroyed) return;
    if (!router) {
      this.ctx.log.warn(
        { routerId: routerId.slice(0, 64) },
        'router link refused: unknown router or wrong secret',
      );
      return void refuse(socket, 401, 'Unauthorized');
    }
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      this.accept(router.id, router.name, ws);
      // A catalogue change checked the links while this router's secret was being checked: check it again.
      if (this.drops !== drops) this.recheck(router.id);
    });
  }

  private recheck(routerId: string): void {
    const entry = this.links.get(routerId);
    if (!entry) return;
    this.directory
      .linkable([routerId])
      .then((allowed) => {
        if (!allowed.has(routerId)) entry.link.close(LINK_CLOSE_NOT_ALLOWED, 'router no longer allowed');
      })
      .catch((err: unknown) => this.ctx.log.error({ err, routerId }, 'router link check failed'));
  }

  /** Runs a handler; what it throws or rejects with is logged (the link stays up). */
  private handle(what: string, routerId: string, run: () => void | Promise<void>): void {
    (async () => run())().catch((err: unknown) => this.ctx.log.error({ err, routerId }, what));
  }

  private accept(routerId: string, name: string, ws: WebSocket): void {
    // One link per router: a reconnecting router replaces its stale link (no link-down, no second link-up).
    const replaced = this.links.get(routerId);
    replaced?.socket.terminate();
    const link: RouterLink = {
      routerId,
      send: (message) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
      },
      close: (code, reason) => ws.close(code, reason),
    };
    const entry = { link, socket: ws, alive: true };
    this.links.set(routerId, entry);
    ws.on('pong', () => (entry.alive = true));
    let ignored = 0;
    let ignoredLoggedAt = 0;
    ws.on('message', (data) => {
      // Whatever a frame holds, it costs that frame alone: the link (and every revocation on it) stays up.
      const frame = parseRouterFrame(String(data));
      if (frame.kind === 'message')
        return this.handle('router link message failed', routerId, () =>
          this.handlers.message(link, frame.message),
        );
      if (frame.kind === 'unknown-token')
        return link.send({ t: 'lookup.result', id: frame.id, session: null, service: null });
      ignored++;
      if (Date.now() - ignoredLoggedAt < IGNORED_LOG_INTERVAL_MS) return;
      this.ctx.log.warn({ routerId, why: frame.why, ignored }, 'router link frame ignored');
      ignoredLoggedAt = Date.now();
      ignored = 0;
    });
    ws.on('close', (code) => {
      const current = this.links.get(routerId) === entry;
      if (current) this.links.delete(routerId);
      this.ctx.log.info({ routerId, name }, 'router link closed');
      if (current && !this.closing) this.recordLink('down', routerId, name, { closeCode: code });
      this.handle('router link close failed', routerId, () => this.handlers.closed(link));
    });
    ws.on('error', () => undefined);
    this.ctx.log.info({ routerId, name }, 'router linked');
    if (!replaced) this.recordLink('up', routerId, name);
    this.handle('router link snapshot failed', routerId, () => this.handlers.opened(link));
  }

  private recordLink(
    change: 'up' | 'down',
    id: string,
    name: string,
    details?: Record<string, unknown>,
  ): void {
    this.handle('router link audit failed', id, () =>
      recordRouterLink(this.ctx, change, { id, name }, this.ctx.clock.now(), details).then(() => undefined),
    );
  }

  private pingAll(): void {
    for (const entry of this.links.values()) {
      if (!entry.alive) entry.socket.terminate();
      entry.alive = false;
      entry.socket.ping();
    }
  }
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
