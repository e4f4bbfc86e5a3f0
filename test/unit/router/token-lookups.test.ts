/**
 * The router's rationing of lookups for tokens it was not told of (edge-router/token-lookups.ts), on a clock
 * the test moves: a connection's budget (a burst, then a refill), the router-wide bound on lookups in flight,
 * one lookup per token however many streams ask, and the memory of "unknown" (only of an answer, never of a
 * lookup that went unanswered). The real link under a flood is test/integration/router-link-flood.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LookupAnswer } from '../../../edge-router/controller-link.js';
import {
  LOOKUP_BURST,
  LOOKUP_REFILL_PER_SECOND,
  LookupBudget,
  MAX_LOOKUPS_IN_FLIGHT,
  TokenLookups,
  UNKNOWN_TOKEN_TTL_MS,
} from '../../../edge-router/token-lookups.js';
import type { RouterSession } from '../../../src/api/data-plane.js';

const UNKNOWN: LookupAnswer = { answered: true, session: null, service: null };

/** A link whose answers the test gives, counting what it was asked. */
function fakeLink() {
  const asked: string[] = [];
  const pending = new Map<string, (a: LookupAnswer) => void>();
  return {
    asked,
    answer: (token: string, a: LookupAnswer) => pending.get(token)!(a),
    lookup: (token: string) => {
      asked.push(token);
      return new Promise<LookupAnswer>((resolve) => pending.set(token, resolve));
    },
  };
}

describe('token lookups', () => {
  it('a connection gets a burst of lookups, then a refill per second', async () => {
    let now = 0;
    const link = { lookup: async () => UNKNOWN };
    const lookups = new TokenLookups(link, () => now);
    const budget = new LookupBudget(() => now);
    for (let i = 0; i < LOOKUP_BURST; i++)
      expect((await lookups.find(randomUUID(), budget)).kind).toBe('unknown');
    expect((await lookups.find(randomUUID(), budget)).kind).toBe('limited');
    now += 1000;
    for (let i = 0; i < LOOKUP_REFILL_PER_SECOND; i++)
      expect((await lookups.find(randomUUID(), budget)).kind).toBe('unknown');
    expect((await lookups.find(randomUUID(), budget)).kind).toBe('limited');
    // Another connection has its own budget.
    expect((await lookups.find(randomUUID(), new LookupBudget(() => now))).kind).toBe('unknown');
  });

  it(`remembers "unknown" for ${UNKNOWN_TOKEN_TTL_MS / 1000} s without asking or spending budget, then asks again`, async () => {
    let now = 0;
    const link = fakeLink();
    const lookups = new TokenLookups(link, () => now);
    const token = randomUUID();
    const first = lookups.find(token, new LookupBudget(() => now));
    link.answer(token, UNKNOWN);
    expect((await first).kind).toBe('unknown');
    const spent = new LookupBudget(() => now);
    for (;;) {
      const next = randomUUID();
      const outcome = lookups.find(next, spent);
      if (link.asked.at(-1) === next) link.answer(next, UNKNOWN);
      if ((await outcome).kind === 'limited') break;
    }
    const asked = link.asked.length;
    expect((await lookups.find(token, spent)).kind).toBe('unknown');
    expect(link.asked).toHaveLength(asked);
    now += UNKNOWN_TOKEN_TTL_MS + 1;
    const again = lookups.find(token, new LookupBudget(() => now));
    expect(link.asked.at(-1)).toBe(token);
    link.answer(token, UNKNOWN);
    expect((await again).kind).toBe('unknown');
  });

  it('never remembers an unanswered lookup, and finds a session the controller knows', async () => {
    const link = fakeLink();
    const lookups = new TokenLookups(link);
    const token = randomUUID();
    const first = lookups.find(token, new LookupBudget());
    link.answer(token, { answered: false, session: null, service: null });
    expect((await first).kind).toBe('unanswered');
    const second = lookups.find(token, new LookupBudget());
    const session = { id: 's' } as RouterSession;
    link.answer(token, { answered: true, session, service: null });
    expect(await second).toEqual({ kind: 'found', answer: { answered: true, session, service: null } });
  });

  it('asks once for a token however many streams present it, and bounds lookups in flight', async () => {
    const link = fakeLink();
    const lookups = new TokenLookups(link);
    const token = randomUUID();
    const many = Array.from({ length: 10 }, () => lookups.find(token, new LookupBudget()));
    expect(link.asked).toEqual([token]);
    const others = Array.from({ length: MAX_LOOKUPS_IN_FLIGHT - 1 }, () =>
      lookups.find(randomUUID(), new LookupBudget()),
    );
    expect((await lookups.find(randomUUID(), new LookupBudget())).kind).toBe('limited');
    for (const t of link.asked) link.answer(t, UNKNOWN);
    expect((await Promise.all([...many, ...others])).every((o) => o.kind === 'unknown')).toBe(true);
    // Answered, they no longer count: the next token is asked about.
    const next = randomUUID();
    const outcome = lookups.find(next, new LookupBudget());
    expect(link.asked.at(-1)).toBe(next);
    link.answer(next, UNKNOWN);
    expect((await outcome).kind).toBe('unknown');
  });
});
