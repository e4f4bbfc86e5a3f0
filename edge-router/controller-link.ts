/**
 * The router's live link to its controller: a WebSocket it keeps open, reconnecting with jittered backoff.
 * Every message updates the session table at once (a `session.removed` cuts streams as it arrives). If the
 * link stays down longer than the grace period, the router fails closed: it cuts every stream and refuses
 * new ones until the controller is back and has sent a fresh snapshot.
 */
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import {
  ROUTER_ID_HEADER,
  LINK_CLOSE_NOT_ALLOWED,
  ROUTER_LINK_PATH,
  type RouterServiceTarget,
  type RouterSession,
  type RouterToController,
} from '../src/api/data-plane.js';
import type { Logger } from 'pino';
import { controllerHttpsAgent } from '../src/controller-client/controller-trust.js';
import { linkFailureText, RepeatLimiter } from './link-failure.js';
import { parseControllerMessage } from './link-messages.js';
import type { SessionTable } from './session-table.js';

/** What a lookup learnt: `answered` is false when the controller could not be asked or did not answer. */
export interface LookupAnswer {
  answered: boolean;
  session: RouterSession | null;
  service: RouterServiceTarget | null;
}
const UNANSWERED: LookupAnswer = { answered: false, session: null, service: null };

export interface LinkOptions {
  controllerUrl: string;
  edgeRouterId: string;
  secret: string;
  /** after this long without the controller, cut everything and refuse new streams */
  graceMs: number;
  hello: () => Extract<RouterToController, { t: 'hello' }>;
  /** PEM CA bundle for an https controller whose certificate is not publicly trusted */
  controllerCa?: string;
  /** SHA-256 fingerprint of the one certificate the controller serves, trusted instead of any CA check */
  controllerFingerprint?: string;
}

const BACKOFF_MIN_MS = 250;
const BACKOFF_MAX_MS = 10_000;
/** A lookup unanswered after this long is treated as unknown (the stream is refused, never held open). */
const LOOKUP_TIMEOUT_MS = 3_000;
/** The controller pings every 10 s: a link silent for longer than this is dead, even if TCP has not noticed. */
const SILENCE_LIMIT_MS = 25_000;

export class ControllerLink extends EventEmitter<{ up: []; down: []; failClosed: [] }> {
  private socket: WebSocket | undefined;
  private synced = false;
  private failedClosed = false;
  private stopped = false;
  private attempt = 0;
  private graceTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private nextLookup = 1;
  private readonly lookups = new Map<number, (answer: LookupAnswer) => void>();
  private readonly failures = new RepeatLimiter();

  constructor(
    private readonly options: LinkOptions,
    private readonly table: SessionTable,
    private readonly log: Logger,
  ) {
    super();
  }

  /** True when streams may be carried: linked and synced, or within the grace period of a lost link. */
  get accepting(): boolean {
    return !this.failedClosed && (this.synced || this.graceTimer !== undefined);
  }

  get isUp(): boolean {
    return this.synced;
  }

  start(): void {
    this.connect();
    // Until the first snapshot the router knows nothing; the grace period applies from the start as well.
    this.armGrace();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.graceTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.silenceTimer);
    this.socket?.terminate();
    for (const answer of this.lookups.values()) answer(UNANSWERED);
    this.lookups.clear();
  }

  /** Asks the controller about a token the router has not been told of (callers check its format first). */
  lookup(token: string): Promise<LookupAnswer> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return Promise.resolve(UNANSWERED);
    const id = this.nextLookup++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.lookups.delete(id);
        resolve(UNANSWERED);
      }, LOOKUP_TIMEOUT_MS);
      this.lookups.set(id, (result) => {
        clearTimeout(timer);
        this.lookups.delete(id);
        resolve(result);
      });
      this.send({ t: 'lookup', id, token });
    });
  }

  private connect(): void {
    if (this.stopped) return;
    const url = new URL(ROUTER_LINK_PATH, this.options.controllerUrl);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    const socket = new WebSocket(url, {
      headers: {
        [ROUTER_ID_HEADER]: this.options.edgeRouterId,
        authorization: `Bearer ${this.options.secret}`,
      },
      handshakeTimeout: 5_000,
      // The same trust as enrollment's: a CA bundle, or the pinned certificate checked when the handshake ends.
      ...(url.protocol === 'wss:'
        ? {
            agent: controllerHttpsAgent({
              ca: this.options.controllerCa,
              fingerprint: this.options.controllerFingerprint,
            }),
          }
        : {}),
    });
    this.socket = socket;
    const heard = () => {
      clearTimeout(this.silenceTimer);
      this.silenceTimer = setTimeout(() => socket.terminate(), SILENCE_LIMIT_MS);
      this.silenceTimer.unref();
    };
    socket.on('open', () => {
      this.attempt = 0;
      heard();
      this.send(this.options.hello());
    });
    socket.on('ping', heard);
    socket.on('message', (data) => {
      heard();
      this.onMessage(String(data));
    });
    socket.on('unexpected-response', (_request, response) => {
      this.reportFailure(
        `the controller refused the router link (HTTP ${response.statusCode}): is this router still enrolled there?`,
      );
      socket.terminate();
    });
    socket.on('error', (err) => this.reportFailure(linkFailureText(err, this.options.controllerUrl)));
    socket.on('close', (code) => this.onClose(socket, code));
  }

  private onMessage(text: string): void {
    const message = parseControllerMessage(text);
    if (!message) return void this.log.warn({ chars: text.length }, 'controller link frame ignored');
    try {
      this.apply(message);
    } catch (err) {
      // Thrown from the socket's message handler it would end the link: it costs this frame only.
      this.log.error({ err, t: message.t }, 'controller link frame failed');
    }
  }

  private apply(message: NonNullable<ReturnType<typeof parseControllerMessage>>): void {
    switch (message.t) {
      case 'snapshot': {
        const cut = this.table.replace(message.sessions, message.services);
        const wasDown = !this.synced;
        this.synced = true;
        this.failedClosed = false;
        clearTimeout(this.graceTimer);
        this.graceTimer = undefined;
        if (wasDown) {
          this.failures.reset();
          this.log.info({ sessions: message.sessions.length, cut }, 'controller link up');
          this.emit('up');
        }
        break;
      }
      case 'session.added':
        this.table.add(message.session);
        break;
      case 'session.removed': {
        const cut = this.table.remove(message.sessionIds, 'session revoked by the controller');
        if (cut > 0) this.log.info({ sessions: message.sessionIds.length, streams: cut }, 'sessions revoked');
        break;
      }
      case 'service':
        this.table.setTarget(message.service);
        break;
      case 'lookup.result':
        this.lookups.get(message.id)?.({
          answered: true,
          session: message.session,
          service: message.service,
        });
        break;
    }
  }

  private onClose(socket: WebSocket, code: number): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    clearTimeout(this.silenceTimer);
    if (code === LINK_CLOSE_NOT_ALLOWED) {
      // Not a lost link but a router the controller no longer allows: nothing it carries may go on.
      if (this.synced) this.emit('down');
      this.failClosed('the controller no longer allows this router');
    } else if (this.synced) {
      this.synced = false;
      this.log.warn(
        { graceMs: this.options.graceMs },
        'controller link lost; streams continue within the grace period',
      );
      this.emit('down');
      this.armGrace();
    }
    if (this.stopped) return;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt++);
    this.retryTimer = setTimeout(() => this.connect(), delay / 2 + Math.random() * (delay / 2));
  }

  /** At the default level, with the cause and the fix; the same message backs off instead of repeating per retry. */
  private reportFailure(text: string): void {
    const { say, repeated } = this.failures.shouldSay(text);
    if (say) this.log.warn({ attemptsSinceLastSaid: repeated }, `controller link failed: ${text}`);
    else this.log.debug(`controller link failed: ${text}`);
  }

  private armGrace(): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = setTimeout(() => {
      this.graceTimer = undefined;
      if (this.synced || this.stopped) return;
      this.failClosed('controller unreachable beyond the grace period');
    }, this.options.graceMs);
    this.graceTimer.unref();
  }

  /** Cuts every stream and refuses new ones until the controller links again and sends a fresh snapshot. */
  private failClosed(why: string): void {
    clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.synced = false;
    this.failedClosed = true;
    const cut = this.table.cutAll(why);
    this.log.error({ streams: cut }, `${why}: failing closed`);
    this.emit('failClosed');
  }

  private send(message: RouterToController): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }
}
