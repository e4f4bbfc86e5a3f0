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

export const redactUrl = (url: string) => url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');

/**
 * Client-chosen text (a username that failed to sign in) as it may appear in a log: control and format
 * characters escaped so it cannot forge lines or hide in a terminal, and cut to a length worth reading.
 */
export function safeForLog(text: string, max = 64): string {
  const cut = text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
  return cut.replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}
