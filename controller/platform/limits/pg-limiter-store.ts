/**
 * Attempt limiters shared by every controller on one PostgreSQL database (table `attempt_counters`,
 * migrations 001 and 002): 40 wrong passwords spread over two controllers get no more tries than one
 * controller would give. Same answers as the in-memory counters (platform/limits/memory-failure-counters.ts): a sliding
 * window of failure times, places held by attempts being judged, blocks doubling up to a maximum.
 *
 * - Each reserve and each settle is ONE statement per key (`INSERT … ON CONFLICT DO UPDATE … WHERE …
 *   RETURNING`): PostgreSQL locks the key's row and evaluates the update against its latest committed
 *   version, so of racing attempts on any controllers only as many as the limit get a place.
 * - Times are the controller's clock (`ctx.clock`), passed as parameters, not the database's `now()`: tests move
 *   that clock to jump past windows and blocks, and both backends must answer them alike. Controllers sharing a
 *   database are assumed to have clocks synchronised by NTP; an offset of a second or two only moves a window's
 *   or a block's edge by as much.
 * - A connection pool of its own, never the store's transaction: MFA codes are judged inside a transaction
 *   that rolls back when the code is refused, and the failure must count all the same. Its own pool, too, so a
 *   limiter waiting for a connection never waits on transactions that themselves wait for the limiter.
 * - A place held by a controller that died before settling it would shrink the key's budget for good; a place
 *   counts only for HOLD_LEASE_MS (far longer than judging an attempt takes). In memory a place needs no
 *   lease: the process that holds it is the one that forgets it.
 *
 * SQL here numbers its placeholders (`$1`), as each value appears several times (no `?` in it, so PgDatabase
 * passes it as written).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { FailureCounters, LimitRule, LimiterStore } from './limiter-store.js';
import { PgDatabase } from '../../store/postgres/pg-database.js';

/** How long a held place counts without being settled. */
export const HOLD_LEASE_MS = 2 * 60_000;
/** A key untouched this long, not blocked now, is deleted (its escalation forgotten), at most once per PRUNE_EVERY_MS. */
const FORGET_AFTER_MS = 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;
/** Each statement is short and takes one row lock: a few connections serve every limiter of a controller. */
const POOL_SIZE = 4;
/** Keys longer than this (a hostile username), or holding a NUL PostgreSQL text cannot store, are hashed. */
const MAX_PLAIN_KEY = 200;

/** `times` without those at or before `cutoff`, in their order. */
const since = (times: string, cutoff: string) =>
  `ARRAY(SELECT t FROM unnest(${times}) AS t WHERE t > ${cutoff} ORDER BY t)`;

/**
 * A failure at $2 counted on a key whose failures and block level are `failures` and `blocks` (the row as it
 * was, or an empty one): the failures in the window ($3 is now − window) and this one; reaching the limit ($4)
 * clears them and blocks for $5 · 2^blocks milliseconds, at most $6.
 */
function afterFailure(failures: string, blocks: string, blockedUntil: string) {
  const kept = since(failures, '$3::timestamptz');
  const reached = `cardinality(${kept}) + 1 >= $4::int`;
  // 2^60 times any base exceeds every maximum; a larger exponent would overflow float8.
  const blockMs = `LEAST($5::float8 * power(2, LEAST(${blocks}, 60)), $6::float8)`;
  return {
    failures: `CASE WHEN ${reached} THEN '{}'::timestamptz[] ELSE ${kept} || $2::timestamptz END`,
    blocks: `CASE WHEN ${reached} THEN ${blocks} + 1 ELSE ${blocks} END`,
    blockedUntil: `CASE WHEN ${reached} THEN $2::timestamptz + ${blockMs} * interval '1 millisecond' ELSE ${blockedUntil} END`,
  };
}

/**
 * $1 key, $2 now, $3 now − window, $4 now − lease, $5 the limit. A new key gets its place; an existing one
 * when not blocked at $2 and its failures in the window plus its live places are under the limit. Answers a
 * row only when the place was given.
 */
const RESERVE = `
  INSERT INTO attempt_counters AS c (key, failures, holds, blocks, blocked_until, touched_at)
    VALUES ($1, '{}', ARRAY[$2::timestamptz], 0, NULL, $2)
  ON CONFLICT (key) DO UPDATE SET
    failures = ${since('c.failures', '$3::timestamptz')},
    holds = ${since('c.holds', '$4::timestamptz')} || $2::timestamptz,
    touched_at = $2
  WHERE (c.blocked_until IS NULL OR c.blocked_until <= $2)
    AND cardinality(${since('c.failures', '$3::timestamptz')}) + cardinality(${since('c.holds', '$4::timestamptz')})
      < $5::int
  RETURNING true AS held`;

const fresh = afterFailure(`'{}'::timestamptz[]`, '0', 'NULL::timestamptz');
const counted = afterFailure('c.failures', 'c.blocks', 'c.blocked_until');
/**
 * $1 key, $2 now, $3 now − window, $4 the limit, $5 base block, $6 maximum block (milliseconds), $7 whether a
 * held place is given back (the oldest: places are alike, and a lost one ages out first).
 */
const FAIL = `
  INSERT INTO attempt_counters AS c (key, failures, holds, blocks, blocked_until, touched_at)
    VALUES ($1, ${fresh.failures}, '{}', ${fresh.blocks}, ${fresh.blockedUntil}, $2)
  ON CONFLICT (key) DO UPDATE SET
    failures = ${counted.failures},
    blocks = ${counted.blocks},
    blocked_until = ${counted.blockedUntil},
    holds = CASE WHEN $7::boolean THEN c.holds[2:] ELSE c.holds END,
    touched_at = $2`;

const GIVE_BACK = `UPDATE attempt_counters SET holds = holds[2:] WHERE key = $1`;

export class PgLimiterStore implements LimiterStore {
  private lastPrune = Number.NEGATIVE_INFINITY;
  private pruning: Promise<unknown> | undefined;

  constructor(readonly db: PgDatabase) {}

  /** On a pool of its own with the store pool's connection settings (see the header for why). */
  static beside(storePool: pg.Pool): PgLimiterStore {
    const pool = new pg.Pool({ ...storePool.options, max: POOL_SIZE });
    // An idle connection the server dropped must not take the controller down with an unhandled error.
    pool.on('error', () => undefined);
    return new PgLimiterStore(new PgDatabase(pool));
  }

  counters(name: string, rule: LimitRule): FailureCounters {
    return new PgFailureCounters(this, name, rule);
  }

  /** Deletes long-quiet keys now and then, so guessing over countless usernames does not grow the table for good. */
  prune(now: number): void {
    if (this.pruning || now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pruning = this.db
      .run(
        'DELETE FROM attempt_counters WHERE touched_at < $1 AND (blocked_until IS NULL OR blocked_until < $2)',
        [new Date(now - FORGET_AFTER_MS), new Date(now)],
      )
      .catch(() => 0)
      .finally(() => (this.pruning = undefined));
  }

  async close(): Promise<void> {
    await this.pruning;
    await this.db.close();
  }
}

class PgFailureCounters implements FailureCounters {
  constructor(
    private readonly store: PgLimiterStore,
    private readonly name: string,
    private readonly rule: LimitRule,
  ) {}

  async reserve(key: string, now: number): Promise<boolean> {
    // An empty budget: a new key's insert would otherwise get a place.
    if (this.rule.maxFailures <= 0) return false;
    const row = await this.store.db.one(RESERVE, [
      this.rowKey(key),
      new Date(now),
      new Date(now - this.rule.windowMs),
      new Date(now - HOLD_LEASE_MS),
      this.rule.maxFailures,
    ]);
    return row !== undefined;
  }

  async settle(key: string, failed: boolean, now: number): Promise<void> {
    if (failed) await this.fail(key, now, true);
    else await this.store.db.run(GIVE_BACK, [this.rowKey(key)]);
  }

  recordFailure(key: string, now: number): Promise<void> {
    return this.fail(key, now, false);
  }

  async clear(key: string): Promise<void> {
    await this.store.db.run('DELETE FROM attempt_counters WHERE key = $1', [this.rowKey(key)]);
  }

  async blockedUntil(key: string): Promise<number> {
    const row = await this.store.db.one<{ blocked_until: Date | null }>(
      'SELECT blocked_until FROM attempt_counters WHERE key = $1',
      [this.rowKey(key)],
    );
    return row?.blocked_until?.getTime() ?? 0;
  }

  private async fail(key: string, now: number, givesBack: boolean): Promise<void> {
    const { windowMs, maxFailures, baseBlockMs, maxBlockMs } = this.rule;
    await this.store.db.run(FAIL, [
      this.rowKey(key),
      new Date(now),
      new Date(now - windowMs),
      maxFailures,
      baseBlockMs,
      maxBlockMs,
      givesBack,
    ]);
    this.store.prune(now);
  }

  /** The limiter's name keeps its keys apart from the other limiters' in the one table. */
  private rowKey(key: string): string {
    const plain = key.length <= MAX_PLAIN_KEY && !key.includes('\u0000');
    return `${this.name}:${plain ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`}`;
  }
}
