/**
 * Every failure of a controller call as one typed error: the HTTP status (0 when no answer came), the
 * OpenZiti error code, and the field a validation error names. Callers branch on `code`, users read `message`.
 */
import type { ApiErrorCause } from '../api/envelopes.js';

/** Codes for failures that never reached the controller's error envelope. */
export const LOCAL_ERROR_CODES = {
  unreachable: 'UNREACHABLE',
  tls: 'TLS_ERROR',
  invalidResponse: 'INVALID_RESPONSE',
  aborted: 'ABORTED',
} as const;

export interface ControllerErrorInit {
  status: number;
  code: string;
  message: string;
  field?: string;
  apiCause?: ApiErrorCause;
  retryAfterMs?: number;
  requestId?: string;
}

export class ControllerError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  /** The envelope's `cause` (field errors, INVALID_POSTURE's failing checks). */
  readonly apiCause: ApiErrorCause | undefined;
  readonly retryAfterMs: number | undefined;
  readonly requestId: string | undefined;

  constructor(init: ControllerErrorInit) {
    super(init.message);
    this.name = 'ControllerError';
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.apiCause = init.apiCause;
    this.retryAfterMs = init.retryAfterMs;
    this.requestId = init.requestId;
  }

  /** No HTTP answer at all: the controller is down, restarting, or the network is gone. */
  get isUnreachable(): boolean {
    return this.code === LOCAL_ERROR_CODES.unreachable;
  }

  /** Worth trying again later without changing anything: no answer, a server fault, or a rate limit. */
  get isTransient(): boolean {
    return this.isUnreachable || this.status >= 500 || this.status === 429;
  }
}

export function isControllerError(error: unknown, code?: string): error is ControllerError {
  return error instanceof ControllerError && (code === undefined || error.code === code);
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ECONNABORTED',
  'ERR_NETWORK',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'UND_ERR_SOCKET',
]);

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/** An error from the HTTP layer (no response) as a ControllerError naming the controller. */
export function transportError(error: unknown, baseUrl: string): ControllerError {
  const code = (error as { code?: unknown })?.code;
  const text = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && TLS_CODE.test(code)) {
    return new ControllerError({
      status: 0,
      code: LOCAL_ERROR_CODES.tls,
      message:
        code === 'CERT_FINGERPRINT_MISMATCH'
          ? `${text} at ${baseUrl}: check the fingerprint the controller printed at its start`
          : `cannot establish a trusted TLS connection to ${baseUrl} (${code}); pass the controller's CA bundle (--controller-ca FILE) or pin its certificate (--controller-fingerprint)`,
    });
  }
  if (code === 'ERR_CANCELED') {
    return new ControllerError({ status: 0, code: LOCAL_ERROR_CODES.aborted, message: 'request cancelled' });
  }
  const reason = typeof code === 'string' && NETWORK_CODES.has(code) ? code : text;
  // A TLS server hangs up on a plain-HTTP request: the likeliest cause of a reset on an http:// address.
  const hint =
    code === 'ECONNRESET' && baseUrl.startsWith('http://')
      ? `; if the controller serves HTTPS, use ${baseUrl.replace(/^http:/, 'https:')}`
      : '';
  return new ControllerError({
    status: 0,
    code: LOCAL_ERROR_CODES.unreachable,
    message: `cannot reach the controller at ${baseUrl} (${reason})${hint}`,
  });
}
