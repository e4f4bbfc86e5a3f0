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
 *
 * The budgets are kept in a LimiterStore: this process's memory, or the database several controllers share
 * (then a burst spread over them gets no more tries than one controller would give).
 */
import { FailureLimiter, type LimitRule } from './failure-limiter.js';
import type { LimiterStore } from './limiter-store.js';
import { memoryLimiters } from './memory-failure-counters.js';

export type { LimitRule } from './failure-limiter.js';

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

  /** `name` keeps these budgets apart from other limits in a shared store (`login`, `mfa`). */
  constructor(
    rules: AttemptLimitRules,
    now: () => number,
    store: LimiterStore = memoryLimiters,
    name = 'attempts',
  ) {
    const limiter = (part: string, rule: LimitRule) =>
      new FailureLimiter({ ...rule, now }, store.counters(`${name}.${part}`, rule));
    this.pair = limiter('pair', rules.perPair);
    this.address = limiter('address', rules.perAddress);
    this.account = limiter('account', rules.perAccount);
  }

  /**
   * Holds a place in all three budgets, or none: answers how long to wait when any of them is spent or
   * blocked. Parallel attempts share the budgets, so a burst gets no more tries than the limits. The tight
   * budget is asked first, so most refusals hold nothing to give back.
   */
  async reserve(
    account: string,
    address: string,
  ): Promise<{ ticket: AttemptTicket } | { retryAfterMs: number }> {
    const held: [FailureLimiter, string][] = [];
    // splice: a place is given back once, even when the store fails while giving it back
    const giveBack = () => Promise.all(held.splice(0).map(([l, k]) => l.settle(k, false)));
    try {
      for (const [limiter, key] of this.keysOf(account, address)) {
        if (!(await limiter.reserve(key))) {
          await giveBack();
          return { retryAfterMs: Math.max(await this.retryAfterMs(account, address), 1000) };
        }
        held.push([limiter, key]);
      }
    } catch (err) {
      // The store failed midway: the places already held are not left to count against the budgets.
      await giveBack().catch(() => undefined);
      throw err;
    }
    return { ticket: { account, address } };
  }

  /** Gives the place back; a failure counts in every budget, a success clears its own pair. */
  async settle(ticket: AttemptTicket, outcome: AttemptOutcome): Promise<void> {
    await Promise.all(
      this.keysOf(ticket.account, ticket.address).map(([limiter, key]) =>
        // Clearing the pair gives its place back too.
        outcome === 'passed' && limiter === this.pair
          ? limiter.recordSuccess(key)
          : limiter.settle(key, outcome === 'failed'),
      ),
    );
  }

  /** The longest block that applies to this account from this address; 0 when none does. */
  async retryAfterMs(account: string, address: string): Promise<number> {
    const waits = await Promise.all(
      this.keysOf(account, address).map(([limiter, key]) => limiter.retryAfterMs(key)),
    );
    return Math.max(0, ...waits);
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
