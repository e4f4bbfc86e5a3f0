/** Everything the controller can be told at start. Defaults are what `npm run controller` uses. */
export interface ControllerConfig {
  dataDir: string;
  /**
   * A PostgreSQL connection URL (`postgres://…`): the store lives there, and several controllers may share it.
   * Unset: the embedded SQLite file in `dataDir`.
   */
  database?: string;
  host: string;
  /** 0 picks a free port */
  port: number;
  tlsCert?: string;
  tlsKey?: string;
  /** API sessions expire after this long without a request */
  sessionTimeoutSeconds: number;
  /** beyond this many API sessions for one identity, a new sign-in ends its least recently used one */
  maxApiSessionsPerIdentity: number;
  /** issuer shown in authenticator apps */
  totpIssuer: string;
  /** password logins: failures allowed per username from one address in the window */
  loginMaxFailures: number;
  /** password logins: failures allowed per source address in the window (higher: offices share addresses) */
  loginMaxFailuresPerAddress: number;
  /** password logins: failures allowed per username over every address (guessing spread over many) */
  loginMaxFailuresPerAccount: number;
  loginWindowSeconds: number;
  logLevel: string;
  /** how long an edge router's one-time enrollment token is valid */
  routerEnrollmentSeconds: number;
  /** how long an identity's enrollment token (`enrollment: {ott}` or `{updb}`) is valid unless set otherwise */
  enrollmentSeconds: number;
  /** serve HTTPS on loopback too (self-signed, as off loopback): certificate sign-in needs it */
  https?: boolean;
  /** a request's headers and body must arrive within this long, or the connection is closed */
  requestTimeoutMs: number;
  /** behind a reverse proxy: take the client address from X-Forwarded-For (limits and audit use it) */
  trustProxy: boolean;
  /** the furthest ahead a posture check exception may expire, in days (at most a year: an exception is temporary) */
  maxPostureExceptionDays: number;
  /** the built administrators' console served at /console; default `out/console` of this installation */
  consoleDir?: string;
  /** browser origins (`https://zac.example.com:8443`) allowed to call the APIs cross-origin (http/cors.ts) */
  corsOrigins: string[];
  /** a build of OpenZiti's console (ZAC) served at /zac/ (console/zac-routes.ts); unset: not served */
  zacDir?: string;
  /**
   * the least time between two fetches of an external JWT signer's keys (external-jwt/signer-keys.ts); 30 s
   * unless set (tests shorten it to see a rotation followed)
   */
  jwksCooldownMs?: number;
  /** the syslog export (events/delivery/): `tcp://host:port` or `tls://host:port`; unset: none */
  syslog?: string;
  /** PEM file of the CA that signed the syslog receiver's certificate (TLS); unset: the system's CAs */
  syslogCa?: string;
  /** events queued for syslog and not yet sent, at most (beyond: not exported, counted and reported) */
  syslogBuffer: number;
  /** audit events older than this many days are deleted (audit/audit-retention.ts) */
  auditRetentionDays: number;
  /** event delivery's timing (tests shorten it); unset fields take events/delivery/event-delivery.ts' defaults */
  eventDelivery?: Partial<import('./events/delivery/event-delivery.js').DeliveryOptions>;
}

export function defaultConfig(dataDir: string): ControllerConfig {
  return {
    dataDir,
    host: '127.0.0.1',
    port: 1280,
    sessionTimeoutSeconds: 30 * 60,
    maxApiSessionsPerIdentity: 100,
    totpIssuer: 'Postern',
    loginMaxFailures: 5,
    loginMaxFailuresPerAddress: 20,
    loginMaxFailuresPerAccount: 20,
    loginWindowSeconds: 300,
    logLevel: 'info',
    routerEnrollmentSeconds: 24 * 3600,
    enrollmentSeconds: 24 * 3600,
    requestTimeoutMs: 30_000,
    trustProxy: false,
    maxPostureExceptionDays: 90,
    corsOrigins: [],
    syslogBuffer: 100_000,
    auditRetentionDays: 90,
  };
}
