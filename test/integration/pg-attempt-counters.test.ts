/**
 * The attempt limiters answer alike in memory and on PostgreSQL (the same scenarios on both: windows,
 * doubling blocks, the three budgets of AttemptLimits, places held by parallel attempts), and on PostgreSQL
 * they are shared: attempts racing through two pools, as two controllers, get no more places than the limit.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttemptLimits } from '../../controller/platform/limits/attempt-limits.js';
import { FailureLimiter } from '../../controller/platform/limits/failure-limiter.js';
import type { LimitRule, LimiterStore } from '../../controller/platform/limits/limiter-store.js';
import { memoryLimiters } from '../../controller/platform/limits/memory-failure-counters.js';
import { migratePostgres } from '../../controller/store/postgres/migrate.js';
import { PgDatabase } from '../../controller/store/postgres/pg-database.js';
import { HOLD_LEASE_MS, PgLimiterStore } from '../../controller/platform/limits/pg-limiter-store.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';

const MINUTE = 60_000;

let server: PostgresServer;
const opened: LimiterStore[] = [];

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);

afterAll(async () => {
  for (const store of opened.splice(0)) await store.close();
  await server?.stop();
});

/** A limiter store on a new migrated database (and a second one on the same database, as another controller). */
async function postgresStores(): Promise<[PgLimiterStore, PgLimiterStore]> {
  const url = await server.createDatabase();
  const open = () => {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    // The server's shutdown may reach a connection the ended pool is still closing.
    pool.on('error', () => undefined);
    const store = new PgLimiterStore(new PgDatabase(pool));
    opened.push(store);
    return store;
  };
  const first = open();
  await migratePostgres(first.db.pool);
  return [first, open()];
}

const backends: [string, () => Promise<LimiterStore>][] = [
  ['memory', () => Promise.resolve(memoryLimiters)],
  ['postgres', async () => (await postgresStores())[0]],
];

/** A clock the test moves. */
function clock() {
  let now = Date.UTC(2030, 0, 1);
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe.each(backends)('FailureLimiter on %s', (_name, open) => {
  let store: LimiterStore;
  beforeAll(async () => (store = await open()));

  let n = 0;
  function limiter() {
    const { now, advance } = clock();
    const rule: LimitRule = { maxFailures: 3, windowMs: 60_000, baseBlockMs: 10_000, maxBlockMs: 40_000 };
    const l = new FailureLimiter({ ...rule, now }, store.counters(`failure-limiter-${++n}`, rule));
    return { l, advance };
  }

  it('blocks a key once it reaches the limit inside the window, and only that key', async () => {
    const { l } = limiter();
    await l.recordFailure('a');
    await l.recordFailure('a');
    expect(await l.retryAfterMs('a')).toBe(0);
    await l.recordFailure('a');
    expect(await l.retryAfterMs('a')).toBe(10_000);
    expect(await l.retryAfterMs('b')).toBe(0);
  });

  it('forgets failures older than the window (a sliding window)', async () => {
    const { l, advance } = limiter();
    await l.recordFailure('a');
    advance(30_000);
    await l.recordFailure('a');
    advance(31_000);
    // the first has left the window, the second not: two now, not three
    await l.recordFailure('a');
    expect(await l.retryAfterMs('a')).toBe(0);
    await l.recordFailure('a');
    expect(await l.retryAfterMs('a')).toBe(10_000);
  });

  it('doubles the block each time, up to the maximum, and a success resets it', async () => {
    const { l, advance } = limiter();
    const block = async () => {
      for (let i = 0; i < 3; i++) await l.recordFailure('a');
      return l.retryAfterMs('a');
    };
    expect(await block()).toBe(10_000);
    advance(10_000);
    expect(await block()).toBe(20_000);
    advance(20_000);
    expect(await block()).toBe(40_000);
    advance(40_000);
    expect(await block()).toBe(40_000);
    await l.recordSuccess('a');
    expect(await l.retryAfterMs('a')).toBe(0);
    expect(await block()).toBe(10_000);
  });

  it('holds places for parallel attempts: no more than the limit, given back when settled', async () => {
    const { l } = limiter();
    const held = await Promise.all(Array.from({ length: 10 }, () => l.reserve('a')));
    expect(held.filter(Boolean)).toHaveLength(3);
    await l.settle('a', false);
    expect(await l.reserve('a')).toBe(true);
    expect(await l.reserve('a')).toBe(false);
    for (let i = 0; i < 3; i++) await l.settle('a', true);
    expect(await l.retryAfterMs('a')).toBe(10_000);
    // blocked: even with a place free, no attempt
    await l.settle('a', false);
    expect(await l.reserve('a')).toBe(false);
  });
});

describe.each(backends)('AttemptLimits on %s', (_name, open) => {
  let store: LimiterStore;
  beforeAll(async () => (store = await open()));

  let n = 0;
  function limits() {
    const { now, advance } = clock();
    const rule = (maxFailures: number, maxBlockMs: number) => ({
      maxFailures,
      windowMs: 5 * MINUTE,
      baseBlockMs: MINUTE,
      maxBlockMs,
    });
    const l = new AttemptLimits(
      { perPair: rule(3, 60 * MINUTE), perAddress: rule(6, 60 * MINUTE), perAccount: rule(5, 4 * MINUTE) },
      now,
      store,
      `attempts-${++n}`,
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
    return { l, fail, allowed, advance };
  }

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
    await fail('a', '10.0.0.1');
    await fail('a', '10.0.0.1');
    expect(await allowed('a', '10.0.0.1')).toBe(true);
    await fail('a', '10.0.0.9');
    expect(await allowed('a', '10.0.0.8')).toBe(false);
  });

  it('a refusal answers at least a second to wait, and holds no place', async () => {
    const { l } = limits();
    const burst = await Promise.all([1, 2, 3, 4].map(() => l.reserve('a', '10.0.0.1')));
    expect(burst.filter((h) => 'ticket' in h)).toHaveLength(3);
    // the fourth was refused by the pair's held places, not a block: it is told to come back in a second
    expect(burst.find((h) => 'retryAfterMs' in h)).toEqual({ retryAfterMs: 1000 });
    for (let i = 1; i <= 5; i++) expect('ticket' in (await l.reserve('x', `10.0.1.${i}`))).toBe(true);
    expect('ticket' in (await l.reserve('x', '10.0.1.6'))).toBe(false);
    const others = await Promise.all(
      ['b', 'c', 'd', 'e', 'f', 'g', 'h'].map((account) => l.reserve(account, '10.0.1.6')),
    );
    expect(others.filter((h) => 'ticket' in h)).toHaveLength(6);
  });
});

describe('on PostgreSQL, shared by controllers', () => {
  const rule: LimitRule = {
    maxFailures: 5,
    windowMs: 5 * MINUTE,
    baseBlockMs: 30_000,
    maxBlockMs: 15 * MINUTE,
  };

  it('40 attempts racing through two pools get exactly the limit of places, then the block holds for both', async () => {
    const [one, two] = await postgresStores();
    const { now } = clock();
    const limiters = [one, two].map((s) => new FailureLimiter({ ...rule, now }, s.counters('login', rule)));
    const held = await Promise.all(Array.from({ length: 40 }, (_, i) => limiters[i % 2]!.reserve('k')));
    expect(held.filter(Boolean)).toHaveLength(5);
    // each controller settles the places it held as failures
    await Promise.all(held.map((h, i) => (h ? limiters[i % 2]!.settle('k', true) : Promise.resolve())));
    for (const l of limiters) {
      expect(await l.retryAfterMs('k')).toBe(30_000);
      expect(await l.reserve('k')).toBe(false);
    }
  });

  it('a place its controller never settled stops counting after the lease', async () => {
    const [store] = await postgresStores();
    const { now, advance } = clock();
    const l = new FailureLimiter({ ...rule, now }, store.counters('login', rule));
    for (let i = 0; i < 5; i++) expect(await l.reserve('k')).toBe(true);
    expect(await l.reserve('k')).toBe(false);
    advance(HOLD_LEASE_MS + 1);
    expect(await l.reserve('k')).toBe(true);
  });

  it('keeps limiters apart by name, and takes keys PostgreSQL text cannot hold', async () => {
    const [store] = await postgresStores();
    const { now } = clock();
    const one = { maxFailures: 1, windowMs: MINUTE, baseBlockMs: 1000, maxBlockMs: 1000 };
    const login = new FailureLimiter({ ...one, now }, store.counters('login', one));
    const mfa = new FailureLimiter({ ...one, now }, store.counters('mfa', one));
    for (const key of ['k', 'nul\u0000key', 'x'.repeat(5000)]) {
      await login.recordFailure(key);
      expect(await login.retryAfterMs(key)).toBe(1000);
      expect(await mfa.retryAfterMs(key)).toBe(0);
    }
  });
});
