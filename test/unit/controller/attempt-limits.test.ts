import { describe, expect, it } from 'vitest';
import { AttemptLimits } from '../../../controller/platform/limits/attempt-limits.js';

const MINUTE = 60_000;

function limits() {
  let now = 1_000_000;
  const rule = (maxFailures: number, maxBlockMs: number) => ({
    maxFailures,
    windowMs: 5 * MINUTE,
    baseBlockMs: MINUTE,
    maxBlockMs,
  });
  const l = new AttemptLimits(
    { perPair: rule(3, 60 * MINUTE), perAddress: rule(6, 60 * MINUTE), perAccount: rule(5, 4 * MINUTE) },
    () => now,
  );
  const fail = async (account: string, address: string) => {
    const held = await l.reserve(account, address);
    if (!('ticket' in held)) throw new Error(`refused ${account} from ${address}`);
    await l.settle(held.ticket, 'failed');
  };
  const allowed = async (account: string, address: string) => {
    const held = await l.reserve(account, address);
    if (!('ticket' in held)) return false;
    await l.settle(held.ticket, 'not-tried');
    return true;
  };
  return { l, fail, allowed, advance: (ms: number) => (now += ms) };
}

describe('AttemptLimits', () => {
  it('blocks an account at the failing address only', async () => {
    const { l, fail, allowed } = limits();
    for (let i = 0; i < 3; i++) await fail('admin', '10.0.0.1');
    expect(await allowed('admin', '10.0.0.1')).toBe(false);
    expect(await l.retryAfterMs('admin', '10.0.0.1')).toBe(MINUTE);
    expect(await allowed('admin', '10.0.0.2')).toBe(true);
    expect(await allowed('ann', '10.0.0.1')).toBe(true);
  });

  it('blocks an address that fails across accounts, for every account', async () => {
    const { fail, allowed } = limits();
    for (const account of ['a', 'a', 'a', 'b', 'b', 'b']) await fail(account, '10.0.0.1');
    expect(await allowed('c', '10.0.0.1')).toBe(false);
    expect(await allowed('c', '10.0.0.2')).toBe(true);
  });

  it('blocks an account guessed at from many addresses everywhere, for a delay capped however often it recurs', async () => {
    const { fail, allowed, advance, l } = limits();
    const blocks: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const from of ['10.0.0.1', '10.0.0.1', '10.0.0.2', '10.0.0.2', '10.0.0.3'])
        await fail('admin', from);
      expect(await allowed('admin', '10.9.9.9')).toBe(false);
      blocks.push(await l.retryAfterMs('admin', '10.9.9.9'));
      advance(6 * MINUTE);
      expect(await allowed('admin', '10.9.9.9')).toBe(true);
    }
    expect(blocks).toEqual([MINUTE, 2 * MINUTE, 4 * MINUTE, 4 * MINUTE, 4 * MINUTE]);
  });

  it('a success forgives its own pair, not the address or the account', async () => {
    const { l, fail, allowed } = limits();
    await fail('a', '10.0.0.1');
    await fail('a', '10.0.0.1');
    const held = await l.reserve('a', '10.0.0.1');
    if (!('ticket' in held)) throw new Error('refused');
    await l.settle(held.ticket, 'passed');
    // the pair starts again from zero: three more failures before its block
    await fail('a', '10.0.0.1');
    await fail('a', '10.0.0.1');
    expect(await allowed('a', '10.0.0.1')).toBe(true);
    // the account still holds all four failures: one more from anywhere blocks it
    await fail('a', '10.0.0.9');
    expect(await allowed('a', '10.0.0.8')).toBe(false);
  });

  it('parallel attempts share the budgets: no more places than the limit, and a refusal holds none', async () => {
    const { l } = limits();
    const pairBurst = await Promise.all([1, 2, 3, 4].map(() => l.reserve('a', '10.0.0.1')));
    expect(pairBurst.filter((h) => 'ticket' in h)).toHaveLength(3);

    // five places held for 'x' from five addresses; a sixth, from .6, is refused by the account budget
    // after its pair and address places were taken: those must be given back
    for (let i = 1; i <= 5; i++) expect('ticket' in (await l.reserve('x', `10.0.1.${i}`))).toBe(true);
    expect('ticket' in (await l.reserve('x', '10.0.1.6'))).toBe(false);
    const others = await Promise.all(
      ['b', 'c', 'd', 'e', 'f', 'g', 'h'].map((account) => l.reserve(account, '10.0.1.6')),
    );
    expect(others.filter((h) => 'ticket' in h)).toHaveLength(6);
  });
});
