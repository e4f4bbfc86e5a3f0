/**
 * The data plane's wire contract: service configs (OpenZiti's `intercept.v1` and `host.v1`), edge routers as
 * clients see them, the controller-to-router link and the agent-to-router streams. Pure TypeScript: the
 * controller, the router, the agent and the renderer all read these shapes from here.
 */

/** Built-in config type names, as OpenZiti names them. */
export const INTERCEPT_V1 = 'intercept.v1';

export type TransportProtocol = 'tcp' | 'udp';

/** Where a client intercepts a service: `addresses` are host names, IPs or CIDRs; ports are inclusive ranges. */
export interface InterceptV1 {
  protocols: TransportProtocol[];
  addresses: string[];
  portRanges: PortRange[];
  [extra: string]: unknown;
}

/**
 * Where the hosting side (the router) dials a service: `protocol`, `address` and `port`, each fixed unless its
 * `forward…` flag is set; then the router dials what the client asked for, only when it lies within the
 * matching `allowed…` list (addresses: IPs, CIDRs, host names, `*.domain`). The router never dials anything
 * else.
 */
export interface HostV1 {
  protocol?: TransportProtocol;
  address?: string;
  port?: number;
  forwardProtocol?: true;
  allowedProtocols?: TransportProtocol[];
  forwardAddress?: true;
  allowedAddresses?: string[];
  forwardPort?: true;
  allowedPortRanges?: PortRange[];
  [extra: string]: unknown;
}

/** An inclusive port range, as OpenZiti's configs write them. */
export interface PortRange {
  low: number;
  high: number;
}

/** A client service's `config` map: config type name → that config's data (only the types asked for). */
export type ServiceConfigMap = Record<string, Record<string, unknown>>;

/** An edge router as `POST /sessions` answers it (OpenZiti's `sessionEdgeRouter`). */
export interface SessionEdgeRouter {
  name: string;
  hostname: string;
  /** protocol → URL, e.g. `{ tls: 'tls://127.0.0.1:3022' }` */
  urls: Record<string, string>;
  supportedProtocols: Record<string, string>;
  isOnline: boolean;
  cost: number;
  noTraversal: boolean;
  disabled: boolean;
  syncStatus: string;
  /**
   * Postern: the SHA-256 fingerprint of the router's TLS certificate (lowercase hex, no separators), handed out
   * over the authenticated API so the agent can pin it. The agent never connects to a router it cannot verify.
   */
  fingerprint: string;
}

// ---- Router enrollment (client API) -------------------------------------------------------------------

/** `POST /edge/client/v1/enroll/erott`: a router redeems its one-time token. */
export const ROUTER_ENROLL_PATH = '/enroll/erott';

export interface RouterEnrollRequest {
  /** the one-time enrollment token an administrator got when creating the router */
  token: string;
  /** the router's TLS certificate (PEM); its fingerprint is what agents pin */
  certPem: string;
}

export interface RouterEnrollReply {
  edgeRouterId: string;
  name: string;
  /** the router's credential for its control link; kept in the router's data folder (mode 0600) */
  secret: string;
}

// ---- The controller-to-router link (a WebSocket the router opens) --------------------------------------

/** WebSocket path on the controller's HTTP server; outside both APIs (routers are not identities). */
export const ROUTER_LINK_PATH = '/edge/router/v1/link';
/**
 * The close code of a link the controller ends because the router may no longer carry traffic (deleted,
 * disabled, re-enrolled): the router cuts every stream at once instead of waiting out its grace period.
 */
export const LINK_CLOSE_NOT_ALLOWED = 4003;
export const ROUTER_ID_HEADER = 'postern-router-id';
/** `authorization: Bearer <secret>` carries the router's secret. */

/** A session a router may carry streams for. The router keeps only the token's SHA-256. */
export interface RouterSession {
  id: string;
  /** sha256(token), lowercase hex */
  tokenHash: string;
  serviceId: string;
  identityId: string;
  apiSessionId: string;
  type: 'Dial' | 'Bind';
}

/** A service's `host.v1` target; `host: null` when it has none (or was deleted). */
export interface RouterServiceTarget {
  serviceId: string;
  name: string;
  host: HostV1 | null;
}

export type ControllerToRouter =
  /** the whole truth: the router replaces what it knew and closes streams of sessions not in it */
  | { t: 'snapshot'; sessions: RouterSession[]; services: RouterServiceTarget[] }
  | { t: 'session.added'; session: RouterSession }
  /** revocation: close these sessions' streams now */
  | { t: 'session.removed'; sessionIds: string[] }
  | { t: 'service'; service: RouterServiceTarget }
  | { t: 'lookup.result'; id: number; session: RouterSession | null; service: RouterServiceTarget | null };

export type RouterToController =
  | { t: 'hello'; hostname: string; urls: Record<string, string>; version: string }
  /** a token the router has not heard of yet (the push may still be on its way): ask, over the link */
  | { t: 'lookup'; id: number; token: string };

// ---- Agent-to-router streams (HTTP/2 CONNECT over TLS) -------------------------------------------------

/** One HTTP/2 CONNECT stream per user connection; these request headers say what it is for. */
export const STREAM_TOKEN_HEADER = 'postern-session-token';
export const STREAM_SERVICE_HEADER = 'postern-service-id';
/**
 * The destination the user's program asked for (its SOCKS5 request, or the address it dialed): used by the
 * router only for a service whose `host.v1` forwards that part, and only within its allowed list; any other
 * service's streams go to its fixed target whatever these say.
 */
export const STREAM_DIAL_ADDRESS_HEADER = 'postern-dial-address';
export const STREAM_DIAL_PORT_HEADER = 'postern-dial-port';
export const STREAM_DIAL_PROTOCOL_HEADER = 'postern-dial-protocol';

/** What the agent asks a stream to be dialed to (sent in the `postern-dial-…` headers; protocol tcp). */
export interface DialTarget {
  /** an IP (no brackets) or a host name */
  address: string;
  port: number;
}
/** On a refused stream: a machine-readable reason beside the HTTP status. */
export const STREAM_ERROR_HEADER = 'postern-error';
/** Beside `postern-error`: the router's words for the refusal (for logs; the agent shows its own). */
export const STREAM_ERROR_MESSAGE_HEADER = 'postern-error-message';

/**
 * What a session token looks like: the controller issues a random UUID (`POST /sessions`). The router checks
 * this before anything it was sent goes near its link, and the controller checks it again before a lookup
 * reaches the store: a token of any other shape is unknown without asking anyone.
 */
const SESSION_TOKEN_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isSessionTokenFormat = (token: unknown): token is string =>
  typeof token === 'string' && SESSION_TOKEN_FORMAT.test(token);

/**
 * Concurrent tunnel streams one edge router carries. Per edge session (one service, one API session): a
 * browser opens at most a few hundred connections at once even through a wildcard service (Chromium's pool
 * is 256 sockets), and a connection pool rarely more. Per identity (every service, every device it is signed
 * in on): several such clients at once. Past either, a stream is refused with 429 (`postern-error`
 * `SESSION_STREAM_LIMIT` / `IDENTITY_STREAM_LIMIT`) instead of taking a socket at the router and the backend.
 */
export const MAX_STREAMS_PER_SESSION = 500;
export const MAX_STREAMS_PER_IDENTITY = 2_000;

export const STREAM_ERRORS = {
  /** 401: the token is unknown, forged or its session was removed */
  INVALID_SESSION: 401,
  /** 403: the session is for another service, or is a Bind session */
  WRONG_SERVICE: 403,
  /** 403 */
  NOT_DIAL: 403,
  /** 404: the service has no host.v1 config */
  NO_HOST_CONFIG: 404,
  /**
   * 403: the service's host.v1 forwards the destination the client asks for, and this one was not asked, was
   * malformed, or lies outside the allowed addresses, ports or protocols (the router is never an open proxy)
   */
  TARGET_NOT_ALLOWED: 403,
  /** 502: the service's host.v1 target refused or did not answer */
  TARGET_UNREACHABLE: 502,
  /** 503: the router has lost its controller for longer than its grace period (fail closed) */
  CONTROLLER_UNREACHABLE: 503,
  /** 429: the edge session already has MAX_STREAMS_PER_SESSION streams open on this router */
  SESSION_STREAM_LIMIT: 429,
  /** 429: the identity already has MAX_STREAMS_PER_IDENTITY streams open on this router */
  IDENTITY_STREAM_LIMIT: 429,
  /** 429: this connection presented too many tokens the router had to ask the controller about */
  TOO_MANY_LOOKUPS: 429,
} as const;
export type StreamError = keyof typeof STREAM_ERRORS;

// ---- Pushed updates to agents (server-sent events on the client API) -----------------------------------

/** `GET /edge/client/v1/current-api-session/events`: `text/event-stream` for the caller's API session. */
export const AGENT_EVENTS_PATH = '/current-api-session/events';

export type AgentEvent =
  /** what one of the identity's services grants changed: re-read /services */
  | { event: 'service-updates'; data: { lastChangeAt: string } }
  /** these sessions of the caller's API session were removed: their tunnels are cut */
  | { event: 'sessions-removed'; data: { sessionIds: string[] } }
  /** the identity's MFA was set up or removed (anywhere, or reset by an administrator): re-read it */
  | { event: 'mfa-changed'; data: Record<string, never> };

/** The SHA-256 fingerprint format agents compare: lowercase hex, no colons. */
export function normaliseFingerprint(fingerprint: string): string {
  return fingerprint.replace(/:/g, '').toLowerCase();
}

/**
 * Where the program asked to go (intercept mode's original destination, a SOCKS5 request): sent with each
 * stream so a `host.v1` with forwardAddress/forwardPort can dial it, within its allowed lists only.
 */
export interface DialTarget {
  address: string;
  port: number;
}
