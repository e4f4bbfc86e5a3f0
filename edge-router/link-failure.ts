/**
 * Why the router's link to its controller failed, in words an operator can act on, and how often to say it.
 * A router that cannot reach or trust its controller must say so at the default level (agents only see
 * CONTROLLER_UNREACHABLE), but its link retries several times a second at first: the same message is logged
 * on the first failure and then no more often than every 1, 2, 4, … up to 60 s while it stays the same.
 */

const TRUST_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** The cause and the fix for a failed link attempt (`err` from the WebSocket's `error` event). */
export function linkFailureText(err: Error & { code?: string }, controllerUrl: string): string {
  const code = err.code ?? '';
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT')
    return `the controller's certificate is self-signed: pass --controller-ca <file> (its certificate) or --controller-fingerprint <the fingerprint it printed at its start> to trust it`;
  if (TRUST_CODES.has(code))
    return `the controller's certificate is issued by a CA this router does not trust (${code}): pass --controller-ca <file> with that CA`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the controller's certificate does not name ${new URL(controllerUrl).hostname} (${err.message}): use --controller with a name the certificate holds`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return `the controller's certificate is not valid now (${code}): renew it, or check this machine's clock`;
  if (code === 'CERT_FINGERPRINT_MISMATCH') return `${err.message}: the controller's certificate changed`;
  if (code === 'ECONNREFUSED') return `connection refused: is the controller running at ${controllerUrl}?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot resolve ${new URL(controllerUrl).hostname}: check --controller`;
  if (code === 'ETIMEDOUT' || /timed out/i.test(err.message))
    return `no answer from ${controllerUrl}: is the controller running there, and is the port open?`;
  return `${err.message}${code ? ` (${code})` : ''}: cannot link to the controller at ${controllerUrl}`;
}

const FIRST_REPEAT_MS = 1_000;
const MAX_REPEAT_MS = 60_000;

/** Says a message now unless the same one was said within its current back-off; another message says at once. */
export class RepeatLimiter {
  private last: string | undefined;
  private nextAt = 0;
  private gapMs = FIRST_REPEAT_MS;
  /** attempts with the last message not logged since it last was */
  private held = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** true: log it now (the caller adds how many were held back). */
  shouldSay(message: string): { say: boolean; repeated: number } {
    const t = this.now();
    if (message !== this.last) {
      this.last = message;
      this.gapMs = FIRST_REPEAT_MS;
      this.nextAt = t + this.gapMs;
      this.held = 0;
      return { say: true, repeated: 0 };
    }
    if (t < this.nextAt) {
      this.held++;
      return { say: false, repeated: this.held };
    }
    const repeated = this.held + 1;
    this.held = 0;
    this.gapMs = Math.min(MAX_REPEAT_MS, this.gapMs * 2);
    this.nextAt = t + this.gapMs;
    return { say: true, repeated };
  }

  /** The link came up: the next failure is news again. */
  reset(): void {
    this.last = undefined;
    this.held = 0;
  }
}
