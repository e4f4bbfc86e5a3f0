/**
 * Limits on guessing a secret (a password, a TOTP code) that an attacker cannot turn against someone
 * else. Three budgets, all counted before the attempt is judged:
 *
 * - per account *and* address: the tight one. A guesser is stopped after a few tries, and only for that
 *   account from that address, so a colleague behind the same address, or the account's owner elsewhere,
 *   is not locked out by them;
 * - per address, over every account: wider (offices share addresses), stops one address trying many accounts;
 * - per account, over every address: wider still, stops guessing spread over many addresses. Its block is
 *   short and capped, so an account under such an attack is reachable from a clean address after a delay,
 *   never locked for good.
 *
 * A success forgives only its own account-and-address pair: succeeding on one's own account must not
 * reset an address or an account that may be under attack from elsewhere.
 */
import { FailureLimiter, type FailureLimiterOptions } from './failure-limiter.js';

export type LimitRule = Omit<FailureLimiterOptions, 'now'>;

export interface AttemptLimitRules {
  perPair: LimitRule;
  perAddress: LimitRule;
  perAccount: LimitRule;
}

/** A held place for one attempt; hand it back with `settle`. */
export interface AttemptTicket {
  account: string;
  address: string;
}

export type AttemptOutcome = 'failed' | 'passed' | 'not-tried';

export class AttemptLimits {
  private readonly pair: FailureLimiter;
  private readonly address: FailureLimiter;
  private readonly account: FailureLimiter;

  constructor(rules: AttemptLimitRules, now: () => number) {
    this.pair = new FailureLimiter({ ...rules.perPair, now });
    this.address = new FailureLimiter({ ...rules.perAddress, now });
    this.account = new FailureLimiter({ ...rules.perAccount, now });
  }

  /**
   * Holds a place in all three budgets, or none: answers how long to wait when any of them is spent or
   * blocked. Parallel attempts share the budgets, so a burst gets no more tries than the limits.
   */
  reserve(account: string, address: string): { ticket: AttemptTicket } | { retryAfterMs: number } {
    const held: [FailureLimiter, string][] = [];
    for (const [limiter, key] of this.keysOf(account, address)) {
      if (!limiter.reserve(key)) {
        held.forEach(([l, k]) => l.settle(k, false));
        return { retryAfterMs: Math.max(this.retryAfterMs(account, address), 1000) };
      }
      held.push([limiter, key]);
    }
    return { ticket: { account, address } };
  }

  /** Gives the place back; a failure counts in every budget, a success clears its own pair. */
  settle(ticket: AttemptTicket, outcome: AttemptOutcome): void {
    for (const [limiter, key] of this.keysOf(ticket.account, ticket.address))
      limiter.settle(key, outcome === 'failed');
    if (outcome === 'passed') this.pair.recordSuccess(pairKey(ticket.account, ticket.address));
  }

  /** The longest block that applies to this account from this address; 0 when none does. */
  retryAfterMs(account: string, address: string): number {
    return Math.max(0, ...this.keysOf(account, address).map(([limiter, key]) => limiter.retryAfterMs(key)));
  }

  private keysOf(account: string, address: string): [FailureLimiter, string][] {
    return [
      [this.pair, pairKey(account, address)],
      [this.address, address],
      [this.account, account],
    ];
  }
}

// JSON keeps the two parts apart whatever characters a username holds.
const pairKey = (account: string, address: string) => JSON.stringify([account, address]);
