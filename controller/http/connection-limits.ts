/**
 * How the controller's HTTP server treats connections, so a slow or malformed client cannot hold one or
 * stall a shutdown: the request must arrive in time (checked often enough to matter), an idle keep-alive
 * connection is dropped soon, close() ends every connection, and what Node's parser refuses (headers too
 * large, too slow) is answered in the OpenZiti envelope with `Connection: close`, so a keep-alive client does
 * not send its next request down a socket that is about to close.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ControllerConfig } from '../config.js';
import { errorEnvelope } from './envelope.js';

/** The largest request body either API takes (413 beyond). */
export const BODY_LIMIT = 1024 * 1024;

/** Longer than the agent event stream's heartbeat, which keeps a quiet stream from looking idle. */
const IDLE_CONNECTION_MS = 120_000;
const KEEP_ALIVE_MS = 30_000;
const HEADERS_TIMEOUT_MS = 10_000;

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', 'The request headers are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'The request did not arrive in time'],
};

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    400,
    'INVALID_REQUEST',
    'The request could not be understood',
  ];
  const body = JSON.stringify(
    errorEnvelope({ code, message, cause: { field: 'request', reason: error.code ?? 'malformed' } }),
  );
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * What HTTPS is served with: the key and certificate, and for certificate sign-in the CA whose client
 * certificates the server asks for (`requestCert` without `rejectUnauthorized`, so clients without one, such
 * as password logins, still connect; the sign-in route judges the certificate itself).
 */
export interface ServerTls {
  key: string;
  cert: string;
  ca?: string;
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
}

/** Fastify's options for all of the above; `tls` when serving HTTPS. */
export function connectionOptions(config: ControllerConfig, tls: ServerTls | undefined) {
  // How often Node looks for requests past their timeout (its default, 30 s, would let one run that long over).
  const connectionsCheckingInterval = Math.max(250, Math.min(5_000, config.requestTimeoutMs / 4));
  return {
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: IDLE_CONNECTION_MS,
    keepAliveTimeout: KEEP_ALIVE_MS,
    forceCloseConnections: true,
    clientErrorHandler: answerClientError,
    ...(tls ? { https: { ...tls, connectionsCheckingInterval } } : { http: { connectionsCheckingInterval } }),
  };
}

/** Set on the server once it exists (Fastify has no option for it). */
export const headersTimeoutMs = (config: ControllerConfig) =>
  Math.min(HEADERS_TIMEOUT_MS, config.requestTimeoutMs);
