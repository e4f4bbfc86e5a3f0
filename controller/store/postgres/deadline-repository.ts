import type { ClaimedDeadline, DeadlineRepository } from '../deadline-repository.js';
import type { PgDatabase } from './pg-database.js';

/**
 * Deadlines in PostgreSQL's `deadlines` table (migration 1), due_at on the database's clock. A claim is one
 * statement: the overdue rows are locked with SKIP LOCKED, so two instances claiming at once each get
 * different rows instead of waiting for (and then double-claiming) the other's. PostgreSQL-only by design, so
 * not on the shared SQL layer: SQLite keeps no deadlines (sqlite/deadline-repository.ts says why).
 */
export class PgDeadlineRepository implements DeadlineRepository {
  constructor(private readonly db: PgDatabase) {}

  async set(id: string, kind: string, subject: string, dueInMs: number, owner: string): Promise<void> {
    // clock_timestamp(), not now(): now() is when the enclosing transaction began, and an evaluation's
    // transaction may have run for a while before it writes.
    await this.db.run(
      `INSERT INTO deadlines (id, kind, subject, due_at, owner, claimed_at)
         VALUES (?, ?, ?, clock_timestamp() + ?::double precision * interval '1 millisecond', ?, NULL)
       ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, subject = excluded.subject,
         due_at = excluded.due_at, owner = excluded.owner, claimed_at = NULL`,
      [id, kind, subject, dueInMs, owner],
    );
  }

  async delete(id: string): Promise<void> {
    await this.db.run(`DELETE FROM deadlines WHERE id = ?`, [id]);
  }

  async claimOverdue(owner: string, overdueByMs: number, limit: number): Promise<ClaimedDeadline[]> {
    // The outer ORDER BY: UPDATE … RETURNING answers rows in no particular order.
    return this.db.rows<ClaimedDeadline>(
      `WITH claimed AS (
         UPDATE deadlines SET owner = ?, claimed_at = now()
         WHERE id IN (
           SELECT id FROM deadlines
           WHERE due_at <= now() - ?::double precision * interval '1 millisecond'
             AND (claimed_at IS NULL OR claimed_at <= now() - ?::double precision * interval '1 millisecond')
           ORDER BY due_at
           LIMIT ?
           FOR UPDATE SKIP LOCKED)
         RETURNING id, kind, subject, due_at)
       SELECT id, kind, subject FROM claimed ORDER BY due_at`,
      [owner, overdueByMs, overdueByMs, limit],
    );
  }
}
