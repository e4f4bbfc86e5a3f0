import { pino, type Logger } from 'pino';

/**
 * The controller's log. Secrets never reach it: session tokens, passwords, TOTP and recovery codes are
 * redacted wherever they could appear, and routes log ids, not bodies.
 */
export const REDACTED_PATHS = [
  'req.headers["zt-session"]',
  'req.headers["mfa-validation-code"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["zt-session"]',
  '*.password',
  '*.token',
  '*.code',
  '*.secret',
  '*.recoveryCodes',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { req: requestForLog } },
    destination as never,
  );
}

/**
 * A request as Fastify logs it (its default fields), with one-time tokens taken out of the URL: enrollment
 * is `POST /enroll?method=ott&token=<token>`, as OpenZiti's clients send it.
 */
function requestForLog(req: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** How a query key reads once the server decodes it (`%74oken` is `token`); undecodable keys stay as sent. */
function decodedKey(key: string): string {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return key.toLowerCase();
  }
}

/** The URL with the value of every query parameter the server reads as `token` masked, however it is spelled. */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const end = url.indexOf('#', start);
  const query = url.slice(start + 1, end < 0 ? undefined : end);
  const masked = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      return decodedKey(key) === 'token' && eq >= 0 ? `${key}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, start + 1)}${masked}${end < 0 ? '' : url.slice(end)}`;
}

/**
 * Client-chosen text (a username that failed to sign in) as it may appear in a log: control and format
 * characters escaped so it cannot forge lines or hide in a terminal, and cut to a length worth reading.
 */
export function safeForLog(text: string, max = 64): string {
  const cut = text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
  return cut.replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
