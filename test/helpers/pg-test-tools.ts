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

/**
 * Makes an API session row by SQL, for the edge sessions and posture rows that need one (their foreign keys
 * refuse a row whose API session does not exist).
 */
export async function addApiSession(
  db: pg.Pool | pg.ClientBase,
  id: string,
  identityId: string,
  at = '2025-01-01T00:00:00.000Z',
): Promise<void> {
  await db.query(
    `INSERT INTO api_sessions (id, token_hash, identity_id, authenticator_id, doc, created_at, updated_at,
       last_activity_at) VALUES ($1, $2, $3, 'a', '{}', $4, $4, $4)`,
    [id, `token-hash-${id}`, identityId, at],
  );
}
