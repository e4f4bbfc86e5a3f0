/**
 * Tokens the router has not been told of. A new session's push may still be on its way, so the router asks
 * the controller over the link; but the token came from an unauthenticated CONNECT, so that question is
 * rationed: only a token of the controller's format is asked about (stream-server.ts checks it), each HTTP/2
 * connection has a small lookup budget, the router keeps only so many lookups in flight, concurrent streams
 * presenting one token share one lookup, and a token the controller said it does not know is answered
 * "unknown" from memory for UNKNOWN_TOKEN_TTL_MS.
 */
import type { ControllerLink, LookupAnswer } from './controller-link.js';
import { hashToken } from './session-table.js';

/**
 * How long "the controller does not know this token" is remembered. A token is handed to a client only
 * after its session is committed, so it never turns valid later; the memory is short only so that it stays
 * small and so that a lookup that raced some unforeseen delay costs a real client ten seconds at most.
 */
export const UNKNOWN_TOKEN_TTL_MS = 10_000;
/** Past this many remembered unknown tokens the oldest are forgotten (memory stays bounded under a flood). */
const UNKNOWN_TOKENS_KEPT = 10_000;
/**
 * Per HTTP/2 connection: a burst of LOOKUP_BURST lookups, then LOOKUP_REFILL_PER_SECOND. An agent needs a
 * lookup only for a session created a moment before its push reached the router: one per service at most.
 */
export const LOOKUP_BURST = 20;
export const LOOKUP_REFILL_PER_SECOND = 2;
/** Router-wide: however many connections ask, at most this many questions wait on the link. */
export const MAX_LOOKUPS_IN_FLIGHT = 64;

export type LookupOutcome =
  | { kind: 'found'; answer: LookupAnswer }
  /** the controller said it does not know the token (now or within the TTL) */
  | { kind: 'unknown' }
  /** not asked: this connection's budget, or the router's, is spent */
  | { kind: 'limited' }
  /** asked, but no answer (link down or slow) */
  | { kind: 'unanswered' };

/** One connection's lookup budget (a token bucket). */
export class LookupBudget {
  private tokens = LOOKUP_BURST;
  private at: number;

  constructor(private readonly now: () => number = Date.now) {
    this.at = now();
  }

  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(LOOKUP_BURST, this.tokens + ((now - this.at) / 1000) * LOOKUP_REFILL_PER_SECOND);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export class TokenLookups {
  /** sha256(token) → when the memory ends; insertion order is age order */
  private readonly unknown = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<LookupAnswer>>();

  constructor(
    private readonly link: Pick<ControllerLink, 'lookup'>,
    private readonly now: () => number = Date.now,
  ) {}

  async find(token: string, budget: LookupBudget): Promise<LookupOutcome> {
    const key = hashToken(token);
    const until = this.unknown.get(key);
    if (until !== undefined) {
      if (until > this.now()) return { kind: 'unknown' };
      this.unknown.delete(key);
    }
    let pending = this.inFlight.get(key);
    if (!pending) {
      if (this.inFlight.size >= MAX_LOOKUPS_IN_FLIGHT || !budget.take()) return { kind: 'limited' };
      pending = this.link.lookup(token).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const answer = await pending;
    if (!answer.answered) return { kind: 'unanswered' };
    if (answer.session) return { kind: 'found', answer };
    this.remember(key);
    return { kind: 'unknown' };
  }

  private remember(key: string): void {
    this.unknown.delete(key);
    this.unknown.set(key, this.now() + UNKNOWN_TOKEN_TTL_MS);
    while (this.unknown.size > UNKNOWN_TOKENS_KEPT) {
      const oldest = this.unknown.keys().next().value;
      if (oldest === undefined) break;
      this.unknown.delete(oldest);
    }
  }
}
