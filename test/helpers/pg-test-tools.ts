/**
 * Small tools the PostgreSQL tests share: closing a pool cleanly, and waiting until a rival's statement waits
 * for a lock. No vitest in here.
 */
import type pg from 'pg';
import type { PgDatabase } from '../../controller/store/postgres/pg-database.js';

/**
 * Ends a pool once its connections have closed: pool.end() resolves as soon as it has asked them to, and a
 * server stopped in between cuts them, which the pool reports as an unhandled error.
 */
export async function endPool(pool: pg.Pool): Promise<void> {
  const open = pool.totalCount;
  let removed = 0;
  const closed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => {
      if (++removed >= open) resolve();
    });
  });
  await pool.end();
  await closed;
}

/** Resolves once some session of this database waits for a lock (the rival's statement, on our row). */
export async function lockWaiter(db: PgDatabase): Promise<void> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline;) {
    const row = await db.one<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (Number(row!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the rival never waited for the open transaction');
}
