/**
 * The data plane's front door: an HTTP/2 server over TLS where every user connection is one CONNECT stream.
 * A stream is authorized by its session token (a Dial session for exactly the service it names) and then
 * piped to that service's `host.v1` target (dial-target.ts): its fixed address and port, or, for a part its
 * host.v1 forwards, the destination the client asked for only when it lies within that part's allowed list.
 * A client's asked destination reaches nothing else, so the router is never an open proxy. Streams are
 * tracked per session so a revocation cuts them at once.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Logger } from 'pino';
import {
  isSessionTokenFormat,
  MAX_STREAMS_PER_IDENTITY,
  MAX_STREAMS_PER_SESSION,
  STREAM_ERROR_HEADER,
  STREAM_ERROR_MESSAGE_HEADER,
  STREAM_ERRORS,
  STREAM_SERVICE_HEADER,
  STREAM_TOKEN_HEADER,
  type RouterSession,
  type StreamError,
} from '../src/api/data-plane.js';
import type { ControllerLink } from './controller-link.js';
import type { SessionTable } from './session-table.js';
import { askedDestination, decideDialTarget, describeAsked } from './dial-target.js';
import { LogThrottle } from './log-throttle.js';
import { LookupBudget, TokenLookups } from './token-lookups.js';

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
    // An agent carries all its identity's tunnels on one connection: as many at once as the identity may
    // have (session-table.ts refuses the one past a cap with a clear reason; this bounds a connection that
    // presents many identities' tokens, or none).
    settings: {
      initialWindowSize: STREAM_WINDOW,
      enableConnectProtocol: false,
      maxConcurrentStreams: MAX_STREAMS_PER_IDENTITY,
    },
    peerMaxConcurrentStreams: MAX_STREAMS_PER_IDENTITY,
    maxSessionMemory: 64,
  });
  const sessions = new Set<ServerHttp2Session>();
  const lookups = new TokenLookups(options.link);
  const capRefusals = new LogThrottle();
  const targetRefusals = new LogThrottle();
  const budgets = new WeakMap<Http2Session, LookupBudget>();
  server.on('session', (session) => {
    budgets.set(session, new LookupBudget());
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.setLocalWindowSize(SESSION_WINDOW);
    session.on('error', () => undefined);
  });
  openSessions.set(server, sessions);
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    const budget = (stream.session && budgets.get(stream.session)) ?? new LookupBudget();
    void handleStream(stream, headers, { ...options, lookups, budget, capRefusals, targetRefusals }).catch(
      (err: unknown) => {
        options.log.error({ err }, 'stream failed');
        refuse(stream, 'TARGET_UNREACHABLE', 'internal error');
      },
    );
  });
  return server;
}

interface StreamContext extends StreamServerOptions {
  lookups: TokenLookups;
  /** this HTTP/2 connection's lookup budget */
  budget: LookupBudget;
  capRefusals: LogThrottle;
  targetRefusals: LogThrottle;
}

async function handleStream(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  { table, link, log, lookups, budget, capRefusals, targetRefusals }: StreamContext,
): Promise<void> {
  if (headers[':method'] !== 'CONNECT') {
    stream.respond({ ':status': 405 }, { endStream: true });
    return;
  }
  if (!link.accepting) return refuse(stream, 'CONTROLLER_UNREACHABLE', 'controller unreachable');
  const token = headers[STREAM_TOKEN_HEADER];
  const serviceId = String(headers[STREAM_SERVICE_HEADER] ?? '');
  // Not the controller's token format: unknown, and never relayed to the controller.
  if (!isSessionTokenFormat(token)) return refuse(stream, 'INVALID_SESSION', 'unknown or revoked session');
  let session: RouterSession | undefined = table.session(token);
  if (!session) {
    // The controller's push of a brand-new session may still be on its way: ask it (rationed).
    const found = await lookups.find(token, budget);
    if (found.kind === 'limited')
      return refuse(stream, 'TOO_MANY_LOOKUPS', 'too many unknown session tokens on this connection');
    if (found.kind === 'unanswered' && !link.isUp)
      return refuse(stream, 'CONTROLLER_UNREACHABLE', 'controller unreachable');
    if (found.kind === 'found' && found.answer.session) {
      table.add(found.answer.session);
      if (found.answer.service) table.setTarget(found.answer.service);
      session = found.answer.session;
    }
  }
  if (!session) return refuse(stream, 'INVALID_SESSION', 'unknown or revoked session');
  if (session.type !== 'Dial') return refuse(stream, 'NOT_DIAL', 'a Bind session cannot dial');
  if (session.serviceId !== serviceId)
    return refuse(stream, 'WRONG_SERVICE', 'session is for another service');
  const service = table.target(serviceId);
  const asked = askedDestination(headers);
  const decision = service?.host ? decideDialTarget(service.host, asked) : { kind: 'no-tcp-host' as const };
  if (decision.kind === 'no-tcp-host')
    return refuse(stream, 'NO_HOST_CONFIG', 'service has no tcp host.v1 config');
  if (decision.kind === 'not-allowed') {
    const refusedSince = targetRefusals.count();
    if (refusedSince !== undefined)
      log.warn(
        {
          sessionId: session.id,
          serviceId,
          service: service?.name,
          asked: describeAsked(asked),
          reason: decision.reason,
          refusedSince,
        },
        'stream refused: destination not allowed',
      );
    return refuse(stream, 'TARGET_NOT_ALLOWED', decision.reason);
  }
  const { address, port } = decision;

  // The slot is taken before dialing, so a burst of opens cannot pass the caps while dials are pending.
  let target: Socket | undefined = undefined;
  let finished = false;
  let revoked = false;
  const slot = table.open(session, {
    cut: () => {
      if (target) finish(constants.NGHTTP2_CANCEL);
      else revoked = true;
    },
  });
  if (typeof slot === 'string') {
    const refusedSince = capRefusals.count();
    if (refusedSince !== undefined)
      log.warn(
        { sessionId: session.id, identityId: session.identityId, cap: slot, refusedSince },
        'stream refused at a cap',
      );
    return refuse(stream, slot, capMessage(slot));
  }
  const release = slot;
  // Ends the tunnel. The service side is dropped only once the stream has closed: destroying it first would
  // destroy the stream's handle before its RST_STREAM went out, leaving the client hanging.
  function finish(code: number): void {
    if (finished) return;
    finished = true;
    release();
    if (stream.closed || stream.destroyed) return void target?.destroy();
    stream.close(code, () => target?.destroy());
  }

  const dialed = await dial(address, port);
  // Revoked while dialing: do not let it through.
  if (revoked || !table.isLive(session.id) || stream.destroyed) {
    release();
    dialed?.destroy();
    return refuse(stream, 'INVALID_SESSION', 'session revoked');
  }
  if (!dialed) {
    release();
    return refuse(stream, 'TARGET_UNREACHABLE', `${address}:${port} did not accept`);
  }
  target = dialed;
  stream.respond({ ':status': 200 });
  // `pipe`, not `pipeline`: pipeline destroys the HTTP/2 stream on the first error, before its RST is sent.
  // Both directions honour backpressure; a half-close from the client is passed on to the service.
  stream.pipe(target);
  target.pipe(stream);
  target.on('error', () => finish(constants.NGHTTP2_CANCEL));
  // The service closed: what it sent is flushed first (NO_ERROR waits for the stream's writes to finish).
  target.on('close', () => finish(constants.NGHTTP2_NO_ERROR));
  stream.on('close', () => finish(constants.NGHTTP2_NO_ERROR));
  log.debug({ sessionId: session.id, serviceId }, 'stream open');
}

function capMessage(cap: 'SESSION_STREAM_LIMIT' | 'IDENTITY_STREAM_LIMIT'): string {
  return cap === 'SESSION_STREAM_LIMIT'
    ? `the session has ${MAX_STREAMS_PER_SESSION} connections open (the most one session may have)`
    : `the identity has ${MAX_STREAMS_PER_IDENTITY} connections open (the most one identity may have)`;
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
    { ':status': STREAM_ERRORS[error], [STREAM_ERROR_HEADER]: error, [STREAM_ERROR_MESSAGE_HEADER]: message },
    { endStream: true },
  );
}
