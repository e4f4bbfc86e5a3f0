/**
 * When to try a controller call again: on no answer, a 5xx or a 429, with jittered exponential back-off,
 * waiting at least what `Retry-After` asks, and only a bounded number of times. A Retry-After longer than
 * the caller is willing to wait ends the retries so the error (with its `retryAfterMs`) reaches the caller.
 */
import { LOCAL_ERROR_CODES, type ControllerError } from './controller-error.js';

export interface RetryOptions {
  /** Retries after the first try; 0 disables retrying. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A longer Retry-After gives up instead of waiting. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 4,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
};

function isRetryable(error: ControllerError): boolean {
  if (error.code === LOCAL_ERROR_CODES.tls || error.code === LOCAL_ERROR_CODES.aborted) return false;
  return error.isTransient;
}

/**
 * The wait before retry number `retry` (0-based), or undefined to give up. "Equal jitter": half the
 * exponential step is fixed, half random, so agents that failed together do not come back together, yet no
 * retry is immediate.
 */
export function retryDelay(
  retry: number,
  error: ControllerError,
  options: RetryOptions,
  random: () => number = Math.random,
): number | undefined {
  if (!isRetryable(error) || retry >= options.maxRetries) return undefined;
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  const jittered = step / 2 + random() * (step / 2);
  if (error.retryAfterMs === undefined) return Math.round(jittered);
  if (error.retryAfterMs > options.maxRetryAfterMs) return undefined;
  // The server said when; a little jitter on top keeps a crowd of agents from arriving at that same instant.
  return Math.round(error.retryAfterMs + random() * options.baseDelayMs);
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
