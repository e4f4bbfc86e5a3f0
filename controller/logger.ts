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
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination as never);
}
