/**
 * The agent's connections to edge routers: one TLS connection per router, its certificate pinned to the
 * fingerprint the controller handed out (checked before a single byte is sent; there is no unverified
 * fallback), carrying HTTP/2. Each user connection is one CONNECT stream on it, authorized by the session token.
 */
import { connect as h2connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { connect as tlsConnect } from 'node:tls';
import {
  MAX_STREAMS_PER_IDENTITY,
  MAX_STREAMS_PER_SESSION,
  normaliseFingerprint,
  STREAM_DIAL_ADDRESS_HEADER,
  STREAM_DIAL_PORT_HEADER,
  STREAM_DIAL_PROTOCOL_HEADER,
  STREAM_ERROR_HEADER,
  STREAM_ERROR_MESSAGE_HEADER,
  STREAM_SERVICE_HEADER,
  STREAM_TOKEN_HEADER,
  type DialTarget,
  type SessionEdgeRouter,
} from '../../api/data-plane.js';
import { isDialAddress } from '../../common/address-pattern.js';

/**
 * Windows large enough that one stream is not flow-control bound on a fast link, and small enough that what
 * the router may send ahead stays well inside the session's memory budget: with a 16 MiB stream window and
 * Node's default 10 MB budget the session stalls for good (measured).
 */
const STREAM_WINDOW = 1 << 22;
const SESSION_WINDOW = 1 << 24;
const SESSION_MEMORY_MB = 64;
const KEEPALIVE_MS = 15_000;
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * A router that could not be reached or refused as unavailable is tried after the others for this long: a
 * stopped router on a real network costs a connect timeout per attempt, so new connections go to the routers
 * that work at once; after this it is tried in its own turn again (it may be back).
 */
export const ROUTER_SETBACK_MS = 30_000;

/** Which edge router carried a stream: its name (the session's routers have no id on the wire) and URL. */
export interface Carrier {
  name: string;
  url: string;
}

/**
 * A stream names the router that carried it. A refusal carries the router's code (`postern-error`) and, for
 * the ones a user can act on, what to say.
 */
export type DialResult =
  { stream: ClientHttp2Stream; router: Carrier } | { status: number; error: string; message?: string };

/** The words the agent shows for refusals the user can do something about (the rest name their code). */
const REFUSAL_WORDS: Record<string, string> = {
  SESSION_STREAM_LIMIT:
    `too many connections to this service at once: the edge router allows ${MAX_STREAMS_PER_SESSION} ` +
    'per service session; close some and try again',
  IDENTITY_STREAM_LIMIT:
    `too many connections open at once for your identity: the edge router allows ${MAX_STREAMS_PER_IDENTITY} ` +
    'across all your services and devices; close some and try again',
  TOO_MANY_LOOKUPS: 'the edge router is limiting new sessions on this connection; try again in a few seconds',
  TARGET_NOT_ALLOWED: "the service's host.v1 does not allow this destination",
};

export class RouterConnector {
  private readonly sessions = new Map<string, Promise<ClientHttp2Session>>();
  /** router URL → when it last failed to carry (unreachable, or refused as unavailable) */
  private readonly setbacks = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A stream for the service through the first router that takes it: online ones first, then by cost, and one
   * that failed within ROUTER_SETBACK_MS after every other.
   * `target`: the destination the user's program asked for, which the router dials only for a service whose
   * host.v1 forwards it (within its allowed lists); every other service ignores it.
   */
  async dial(
    routers: readonly SessionEdgeRouter[],
    token: string,
    serviceId: string,
    target?: DialTarget,
  ): Promise<DialResult> {
    const setBack = (r: SessionEdgeRouter) => {
      const at = this.setbacks.get(r.urls.tls!);
      return at !== undefined && this.now() - at < ROUTER_SETBACK_MS;
    };
    const ordered = [...routers]
      .filter((r) => r.urls?.tls && r.fingerprint)
      .sort(
        (a, b) =>
          Number(setBack(a)) - Number(setBack(b)) ||
          Number(b.isOnline) - Number(a.isOnline) ||
          a.cost - b.cost,
      );
    if (ordered.length === 0) return { status: 503, error: 'NO_EDGE_ROUTER' };
    let last: DialResult = { status: 503, error: 'NO_EDGE_ROUTER' };
    for (const router of ordered) {
      let session: ClientHttp2Session;
      try {
        session = await this.session(router);
      } catch (err) {
        last = { status: 503, error: `ROUTER_UNREACHABLE: ${(err as Error).message}` };
        this.setbacks.set(router.urls.tls!, this.now());
        continue;
      }
      const result = await openStream(session, token, serviceId, target).catch((err: Error): DialResult => ({
        status: 503,
        error: `ROUTER_UNREACHABLE: ${err.message}`,
      }));
      if ('stream' in result) {
        this.setbacks.delete(router.urls.tls!);
        return { stream: result.stream, router: { name: router.name, url: router.urls.tls! } };
      }
      if (result.status !== 503) return result;
      this.setbacks.set(router.urls.tls!, this.now());
      last = result;
    }
    return last;
  }

  close(): void {
    for (const pending of this.sessions.values())
      void pending.then(
        (s) => s.destroy(),
        () => undefined,
      );
    this.sessions.clear();
  }

  private session(router: SessionEdgeRouter): Promise<ClientHttp2Session> {
    const key = `${router.urls.tls}#${normaliseFingerprint(router.fingerprint)}`;
    let pending = this.sessions.get(key);
    if (!pending) {
      pending = connectPinned(router);
      this.sessions.set(key, pending);
      const forget = () => {
        if (this.sessions.get(key) === pending) this.sessions.delete(key);
      };
      pending.then((s) => {
        s.once('close', forget);
        s.once('goaway', forget);
      }, forget);
    }
    return pending;
  }
}

async function connectPinned(router: SessionEdgeRouter): Promise<ClientHttp2Session> {
  const url = new URL(router.urls.tls!.replace(/^tls:/, 'https:'));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port);
  // Verification is the pin below, made before HTTP/2 sends its preface: the router's certificate is
  // self-signed, so a CA check would say nothing; the fingerprint from the authenticated API says everything.
  const socket = tlsConnect({
    host,
    port,
    ALPNProtocols: ['h2'],
    rejectUnauthorized: false,
    servername: undefined,
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no TLS handshake with ${url.host} in time`)),
      CONNECT_TIMEOUT_MS,
    );
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  }).catch((err: unknown) => {
    socket.destroy();
    throw err;
  });
  const presented = normaliseFingerprint(socket.getPeerCertificate().fingerprint256 ?? '');
  if (presented !== normaliseFingerprint(router.fingerprint)) {
    socket.destroy();
    throw new Error(
      `router ${router.name} presented a certificate that does not match its pinned fingerprint`,
    );
  }
  socket.on('error', () => undefined);
  const session = h2connect(url.origin, {
    createConnection: () => socket,
    settings: { initialWindowSize: STREAM_WINDOW },
    maxSessionMemory: SESSION_MEMORY_MB,
  });
  session.on('error', () => undefined);
  session.setLocalWindowSize(SESSION_WINDOW);
  const keepalive = setInterval(() => {
    if (!session.closed && !session.destroyed) session.ping(() => undefined);
  }, KEEPALIVE_MS);
  keepalive.unref();
  session.once('close', () => clearInterval(keepalive));
  return session;
}

/** Async so that a session that closed a moment ago (request() throws) is a refusal, never a throw. */
async function openStream(
  session: ClientHttp2Session,
  token: string,
  serviceId: string,
  target: DialTarget | undefined,
): Promise<{ stream: ClientHttp2Stream } | { status: number; error: string; message?: string }> {
  const stream = session.request(
    {
      ':method': 'CONNECT',
      ':authority': 'service.postern:443',
      [STREAM_TOKEN_HEADER]: token,
      [STREAM_SERVICE_HEADER]: serviceId,
      ...dialHeaders(target),
    },
    { endStream: false },
  );
  stream.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    stream.once('response', (headers) => {
      const status = Number(headers[':status']);
      if (status === 200) return resolve({ stream });
      stream.close();
      const error = String(headers[STREAM_ERROR_HEADER] ?? `HTTP_${status}`);
      const words = REFUSAL_WORDS[error];
      // Which part was outside which list is the router's to say (bounded: it is shown as is).
      const detail = error === 'TARGET_NOT_ALLOWED' ? headers[STREAM_ERROR_MESSAGE_HEADER] : undefined;
      const message = words && typeof detail === 'string' ? `${words} (${detail.slice(0, 200)})` : words;
      resolve({ status, error, ...(message ? { message } : {}) });
    });
    stream.once('close', () => reject(new Error(`stream closed before an answer (code ${stream.rstCode})`)));
  });
}

/**
 * The asked destination as headers. A name that is not one (a SOCKS5 client may send any bytes) is not sent:
 * no header value can break the request, and a service that forwards the address refuses the stream itself.
 */
function dialHeaders(target: DialTarget | undefined): Record<string, string> {
  if (!target) return {};
  return {
    ...(isDialAddress(target.address) ? { [STREAM_DIAL_ADDRESS_HEADER]: target.address } : {}),
    [STREAM_DIAL_PORT_HEADER]: String(target.port),
    [STREAM_DIAL_PROTOCOL_HEADER]: 'tcp',
  };
}
