import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultConfig, type ControllerConfig } from '../config.js';
import { defaultDataDir } from '../data-dir.js';
import { parseSyslogTarget } from '../events/delivery/syslog-sender.js';
import { MAX_AUDIT_RETENTION_DAYS } from '../audit/audit-retention.js';

export const USAGE = `Usage: npm run controller -- [options]

  --data-dir D          where the SQLite database and keys live (default: ${defaultDataDir()})
  --database URL        keep the store in PostgreSQL (postgres://user:password@host:5432/db) instead of
                        SQLite; several controllers may share one (default: POSTERN_DATABASE_URL, else SQLite)
  --port P              TCP port; 0 picks a free one (default 1280)
  --host H              address to bind (default 127.0.0.1)
  --tls-cert F          PEM certificate; serve HTTPS (needs --tls-key)
  --tls-key F           PEM private key for --tls-cert
  --https               serve HTTPS on loopback too (self-signed unless --tls-cert); certificate sign-in needs it
  --session-timeout S   API sessions expire after S seconds without a request (60 to 2592000; default 1800)
  --totp-issuer NAME    issuer shown in authenticator apps (default Postern)
  --enrollment-ttl S    identity enrollment tokens expire after S seconds (60 to 31536000; default 86400)
  --max-exception-days N
                        a posture check exception expires at most N days ahead (1 to 365; default 90)
  --trust-proxy         behind a reverse proxy: the client address comes from X-Forwarded-For (default off)
  --log-level L         fatal, error, warn, info, debug or trace (default info)
  --console-dir D       the administrators' console build served at /console/ (default out/console of this
                        installation); built there before listening when missing and vite is installed
  --cors-origin ORIGIN  let a browser page from ORIGIN (scheme://host[:port], as OpenZiti's console is hosted
                        apart) call the APIs; repeat for several (default: none, no cross-origin calls)
  --zac D               serve a build of OpenZiti's console (ZAC) from folder D at /zac/ (default: not served)
  --audit-retention-days N
                        audit events older than N days are deleted, checked hourly (1 to 3650, default 90)
  --syslog URL          send every audit event to a SIEM as RFC 5424 syslog: tcp://host:port or tls://host:port
                        (default: none)
  --syslog-ca FILE      the CA (PEM) that signed the syslog receiver's certificate (default: the system's)
  --syslog-buffer N     events held for syslog while the receiver is away, at most (default 100000)
  --help                this text

Environment: POSTERN_ADMIN_PASSWORD sets the admin password on first start (otherwise one is
generated, printed once and written to <data-dir>/admin-password, mode 0600); POSTERN_DATABASE_URL
is --database's default.`;

export class UsageError extends Error {}

export const MIN_SESSION_TIMEOUT_SECONDS = 60;
/** An exception is a temporary pass: a year is the longest any setting may make one. */
const MAX_EXCEPTION_DAYS = 365;

const positiveInt = (name: string, value: string | undefined, min = 0, max = Number.MAX_SAFE_INTEGER) => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${value}'`);
  return n;
};

/** The value read as a URL; undefined when it is none. */
function urlOf(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** A PostgreSQL URL as `pg` takes it; anything else is refused here rather than failing at connect. */
function databaseUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = urlOf(value);
  if (
    !url ||
    !['postgres:', 'postgresql:'].includes(url.protocol) ||
    !(url.hostname || url.searchParams.get('host'))
  )
    // The value is not repeated: it may hold a password.
    throw new UsageError(
      '--database must be a PostgreSQL URL such as postgres://user:password@host:5432/postern',
    );
  return value;
}

/**
 * A browser origin as the `Origin` header names it (`https://host:8443`, no path, no trailing slash), so it
 * can be compared exactly. `*` is refused: any web page could then drive an administrator's session.
 */
function corsOrigin(value: string): string {
  const url = urlOf(value);
  if (
    !url ||
    !['http:', 'https:'].includes(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    !['', '/'].includes(url.pathname)
  )
    throw new UsageError(
      `--cors-origin must be a browser origin such as https://zac.example.com:8443 (scheme, host, port), got '${value}'`,
    );
  return url.origin;
}

/** The ZAC build folder: refused at start when it holds no index.html (a typo would otherwise show later). */
function zacDir(value: string): string {
  const dir = resolve(value);
  if (!existsSync(join(dir, 'index.html')))
    throw new UsageError(`--zac must be a folder holding a ZAC build (its index.html), got '${value}'`);
  return dir;
}

/** Command-line options to a controller configuration; a bad option is a UsageError with one clear line. */
export function parseControllerArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): ControllerConfig | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        database: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        https: { type: 'boolean', default: false },
        'enrollment-ttl': { type: 'string' },
        'max-exception-days': { type: 'string' },
        'audit-retention-days': { type: 'string' },
        'session-timeout': { type: 'string' },
        'totp-issuer': { type: 'string' },
        'trust-proxy': { type: 'boolean', default: false },
        'log-level': { type: 'string' },
        'console-dir': { type: 'string' },
        'cors-origin': { type: 'string', multiple: true },
        zac: { type: 'string' },
        syslog: { type: 'string' },
        'syslog-ca': { type: 'string' },
        'syslog-buffer': { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  const config = defaultConfig(values['data-dir'] ?? defaultDataDir());
  config.database = databaseUrl(values.database ?? (env.POSTERN_DATABASE_URL || undefined));
  config.port = positiveInt('port', values.port, 0, 65535) ?? config.port;
  config.host = values.host ?? config.host;
  config.sessionTimeoutSeconds =
    // Under a minute an agent between two reports would be signed out while in use.
    positiveInt('session-timeout', values['session-timeout'], MIN_SESSION_TIMEOUT_SECONDS, 30 * 24 * 3600) ??
    config.sessionTimeoutSeconds;
  config.totpIssuer = values['totp-issuer'] ?? config.totpIssuer;
  config.enrollmentSeconds =
    positiveInt('enrollment-ttl', values['enrollment-ttl'], 60, 365 * 24 * 3600) ?? config.enrollmentSeconds;
  config.maxPostureExceptionDays =
    positiveInt('max-exception-days', values['max-exception-days'], 1, MAX_EXCEPTION_DAYS) ??
    config.maxPostureExceptionDays;
  config.auditRetentionDays =
    positiveInt('audit-retention-days', values['audit-retention-days'], 1, MAX_AUDIT_RETENTION_DAYS) ??
    config.auditRetentionDays;
  config.https = values.https === true;
  config.trustProxy = values['trust-proxy'] === true;
  config.logLevel = values['log-level'] ?? config.logLevel;
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(config.logLevel)) {
    throw new UsageError(
      `--log-level must be fatal, error, warn, info, debug, trace or silent, got '${config.logLevel}'`,
    );
  }
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key']))
    throw new UsageError('--tls-cert and --tls-key go together');
  config.tlsCert = values['tls-cert'];
  config.tlsKey = values['tls-key'];
  if (values['console-dir'] !== undefined) config.consoleDir = values['console-dir'];
  config.corsOrigins = (values['cors-origin'] ?? []).map(corsOrigin);
  if (values.zac !== undefined) config.zacDir = zacDir(values.zac);
  if (values.syslog !== undefined) {
    try {
      parseSyslogTarget(values.syslog);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    config.syslog = values.syslog;
  }
  if (values['syslog-ca'] !== undefined) config.syslogCa = values['syslog-ca'];
  config.syslogBuffer =
    positiveInt('syslog-buffer', values['syslog-buffer'], 100, 10_000_000) ?? config.syslogBuffer;
  return config;
}
