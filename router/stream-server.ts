/**
 * The data plane's front door: an HTTP/2 server over TLS where every user connection is one CONNECT stream.
 * A stream is authorized by its session token (a Dial session for exactly the service it names) and then
 * piped to that service's `host.v1` target: the router never dials an address the client chose, so it can
 * never be used as an open proxy. Streams are tracked per session so a revocation cuts them at once.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Logger } from 'pino';
import {
  STREAM_ERROR_HEADER,
  STREAM_ERRORS,
  STREAM_SERVICE_HEADER,
  STREAM_TOKEN_HEADER,
  type RouterSession,
  type StreamError,
} from '../src/api/data-plane.js';
import type { ControllerLink } from './controller-link.js';
import type { SessionTable } from './session-table.js';

/**
 * Flow-control windows large enough that a single stream is not window-bound on a fast link, and small
 * enough that what agents may send ahead stays inside the session's memory budget (a window larger than the
 * budget stalls the session for good).
 */
const STREAM_WINDOW = 1 << 22;
const SESSION_WINDOW = 1 << 24;
/** A service that does not accept within this long is unreachable (the user's client gets a clean refusal). */
const DIAL_TIMEOUT_MS = 10_000;

export interface StreamServerOptions {
  keyPem: string;
  certPem: string;
  table: SessionTable;
  link: ControllerLink;
  log: Logger;
}

export function createStreamServer(options: StreamServerOptions): Http2SecureServer {
  const server = createSecureServer({
    key: options.keyPem,
    cert: options.certPem,
    allowHTTP1: false,
    settings: { initialWindowSize: STREAM_WINDOW, enableConnectProtocol: false },
    // Many idle tunnels on one connection are normal; the default cap would refuse streams under load.
    peerMaxConcurrentStreams: 100_000,
    maxSessionMemory: 64,
  });
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.setLocalWindowSize(SESSION_WINDOW);
    session.on('error', () => undefined);
  });
  openSessions.set(server, sessions);
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    void handleStream(stream, headers, options).catch((err: unknown) => {
      options.log.error({ err }, 'stream failed');
      refuse(stream, 'TARGET_UNREACHABLE', 'internal error');
    });
  });
  return server;
}

async function handleStream(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  { table, link, log }: StreamServerOptions,
): Promise<void> {
  if (headers[':method'] !== 'CONNECT') {
    stream.respond({ ':status': 405 }, { endStream: true });
    return;
  }
  if (!link.accepting) return refuse(stream, 'CONTROLLER_UNREACHABLE', 'controller unreachable');
  const token = String(headers[STREAM_TOKEN_HEADER] ?? '');
  const serviceId = String(headers[STREAM_SERVICE_HEADER] ?? '');
  let session: RouterSession | undefined = token ? table.session(token) : undefined;
  if (!session && token) {
    // The controller's push of a brand-new session may still be on its way: ask it directly.
    const found = await link.lookup(token);
    if (found.session) {
      table.add(found.session);
      if (found.service) table.setTarget(found.service);
      session = found.session;
    } else if (!link.isUp) return refuse(stream, 'CONTROLLER_UNREACHABLE', 'controller unreachable');
  }
  if (!session) return refuse(stream, 'INVALID_SESSION', 'unknown or revoked session');
  if (session.type !== 'Dial') return refuse(stream, 'NOT_DIAL', 'a Bind session cannot dial');
  if (session.serviceId !== serviceId)
    return refuse(stream, 'WRONG_SERVICE', 'session is for another service');
  const host = table.target(serviceId)?.host;
  if (!host || host.protocol !== 'tcp')
    return refuse(stream, 'NO_HOST_CONFIG', 'service has no tcp host.v1 config');

  const dialed = await dial(host.address, host.port);
  if (!dialed) return refuse(stream, 'TARGET_UNREACHABLE', `${host.address}:${host.port} did not accept`);
  const target = dialed;
  // Revoked while dialing: do not let it through.
  if (!table.isLive(session.id) || stream.destroyed) {
    target.destroy();
    return refuse(stream, 'INVALID_SESSION', 'session revoked');
  }
  stream.respond({ ':status': 200 });
  const sessionId = session.id;
  const untrack = table.track(sessionId, { cut: () => finish(constants.NGHTTP2_CANCEL) });
  let finished = false;
  // Ends the tunnel. The service side is dropped only once the stream has closed: destroying it first would
  // destroy the stream's handle before its RST_STREAM went out, leaving the client hanging.
  function finish(code: number): void {
    if (finished) return;
    finished = true;
    untrack();
    if (stream.closed || stream.destroyed) return void target.destroy();
    stream.close(code, () => target.destroy());
  }
  // `pipe`, not `pipeline`: pipeline destroys the HTTP/2 stream on the first error, before its RST is sent.
  // Both directions honour backpressure; a half-close from the client is passed on to the service.
  stream.pipe(target);
  target.pipe(stream);
  target.on('error', () => finish(constants.NGHTTP2_CANCEL));
  // The service closed: what it sent is flushed first (NO_ERROR waits for the stream's writes to finish).
  target.on('close', () => finish(constants.NGHTTP2_NO_ERROR));
  stream.on('close', () => finish(constants.NGHTTP2_NO_ERROR));
  log.debug({ sessionId, serviceId }, 'stream open');
}

const openSessions = new WeakMap<Http2SecureServer, Set<ServerHttp2Session>>();

/** Stops listening and ends every agent connection (agents keep theirs open, so close alone would wait). */
export function closeServer(server: Http2SecureServer): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const session of openSessions.get(server) ?? []) session.destroy();
  return closed;
}

function dial(address: string, port: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: address, port, noDelay: true });
    const timer = setTimeout(() => fail(), DIAL_TIMEOUT_MS);
    const fail = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(undefined);
    };
    socket.once('error', fail);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', fail);
      socket.on('error', () => undefined);
      resolve(socket);
    });
  });
}

function refuse(stream: ServerHttp2Stream, error: StreamError, message: string): void {
  if (stream.destroyed || stream.headersSent) return void stream.destroy();
  stream.respond(
    { ':status': STREAM_ERRORS[error], [STREAM_ERROR_HEADER]: error, 'postern-error-message': message },
    { endStream: true },
  );
}
