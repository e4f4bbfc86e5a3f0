/**
 * The event delivery queue (delivery-repository.ts), one code for both databases (store/sql/statement.ts):
 * SQLite's migration 17, PostgreSQL's migration 10. Times are the database's clock (`Dialect.msFromNow`),
 * which every instance sharing a PostgreSQL database reads alike (leases, backoff).
 *
 * A claim is one statement: each target's oldest pending row, due and not leased, leased in the same UPDATE
 * that picks it. On PostgreSQL the pick locks with SKIP LOCKED, so two instances claiming at once take
 * different rows rather than both taking one, and one that finds a row just leased re-reads it and passes it
 * over; the lease then keeps every other instance off that target until it ends. On SQLite one controller
 * owns the file and its statements run one at a time, so the lease matters only to a restart, which finds it
 * expired and claims the row again.
 */
import type { DeliveryListQuery } from '../delivery-repository.js';
import type { Delivery, NewDelivery } from '../../event-delivery-model.js';
import { deliveryOf, type DeliveryRow } from '../rows/delivery-rows.js';
import type { Dialect } from '../sql/dialect.js';
import { pageWithTotal } from '../sql/paged.js';
import { one, rows, run, type Sql } from '../sql/statement.js';

const NOW = 0;

export class DeliveryQueries {
  private readonly sql;

  constructor(private readonly dialect: Dialect) {
    const at = dialect.msFromNow;
    this.sql = {
      insert: `INSERT INTO event_deliveries (id, target, event_id, event_type, body, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ${at}, ?)`,
      // The heads are found in a WHERE subquery, not a joined one: PostgreSQL locks only the rows of `d`
      // (a locking clause refuses a GROUP BY in its own FROM list).
      claim: (exceptTargets: string) => `WITH due AS (
           SELECT d.seq FROM event_deliveries d
           WHERE d.seq IN (SELECT min(seq) FROM event_deliveries WHERE state = 'pending' GROUP BY target)
             AND d.state = 'pending' AND d.next_attempt_at <= ${at}
             AND (d.lease_until IS NULL OR d.lease_until <= ${at})
             AND NOT (${exceptTargets})
           ORDER BY d.seq LIMIT ? ${dialect.forUpdateSkipLocked})
         UPDATE event_deliveries SET lease_owner = ?, lease_until = ${at}
         WHERE seq IN (SELECT seq FROM due) RETURNING *`,
      delivered: `UPDATE event_deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = ${at},
           last_error = NULL, lease_owner = NULL, lease_until = NULL
         WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      failed: `UPDATE event_deliveries SET state = ?, attempts = attempts + 1, last_error = ?,
           next_attempt_at = ${at}, lease_owner = NULL, lease_until = NULL
         WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      release: `UPDATE event_deliveries SET next_attempt_at = ${at}, lease_owner = NULL, lease_until = NULL
         WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      redeliver: `INSERT INTO event_deliveries (id, target, event_id, event_type, body, next_attempt_at, created_at)
         SELECT ?, target, event_id, event_type, body, ${at}, created_at FROM event_deliveries
         WHERE id = ? AND state <> 'pending'
         RETURNING *`,
    };
  }

  *enqueue(deliveries: readonly NewDelivery[]): Sql<void> {
    for (const d of deliveries)
      yield* run(this.sql.insert, [
        d.id,
        d.target,
        d.eventId,
        d.eventType,
        d.body,
        NOW,
        d.createdAt.toISOString(),
      ]);
  }

  *claim(owner: string, leaseMs: number, limit: number, exceptTargets: readonly string[]): Sql<Delivery[]> {
    const except = this.dialect.oneOf('d.target', exceptTargets);
    const claimed = yield* rows<DeliveryRow>(this.sql.claim(except.sql), [
      NOW,
      NOW,
      ...except.params,
      limit,
      owner,
      leaseMs,
    ]);
    // RETURNING answers rows in no particular order, on either database
    return claimed.map(deliveryOf).sort((a, b) => a.seq - b.seq);
  }

  *delivered(id: string, owner: string): Sql<boolean> {
    return (yield* run(this.sql.delivered, [NOW, id, owner])) === 1;
  }

  *failed(id: string, owner: string, error: string, retryInMs: number, dead: boolean): Sql<boolean> {
    const state = dead ? 'dead' : 'pending';
    return (yield* run(this.sql.failed, [state, error, retryInMs, id, owner])) === 1;
  }

  *release(id: string, owner: string, retryInMs: number): Sql<void> {
    yield* run(this.sql.release, [retryInMs, id, owner]);
  }

  *redeliver(id: string): Sql<Delivery | undefined> {
    // A new row at the end of the target's order (the old one's seq may be long behind), keeping the event's
    // id so a receiver that already has it can tell; the old row goes so the list shows one.
    const fresh = `${id.split('~')[0]}~${Date.now().toString(36)}`;
    const row = yield* one<DeliveryRow>(this.sql.redeliver, [fresh, NOW, id]);
    if (!row) return undefined;
    yield* run(`DELETE FROM event_deliveries WHERE id = ? AND state <> 'pending'`, [id]);
    return deliveryOf(row);
  }

  *get(id: string): Sql<Delivery | undefined> {
    const row = yield* one<DeliveryRow>(`SELECT * FROM event_deliveries WHERE id = ?`, [id]);
    return row && deliveryOf(row);
  }

  *list(query: DeliveryListQuery): Sql<{ items: Delivery[]; totalCount: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.target !== undefined) {
      where.push('event_deliveries.target = ?');
      params.push(query.target);
    }
    if (query.state !== undefined) {
      where.push('event_deliveries.state = ?');
      params.push(query.state);
    }
    const page = yield* pageWithTotal<DeliveryRow>(
      'event_deliveries',
      'event_deliveries.*',
      { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params },
      'event_deliveries.seq DESC',
      query.limit,
      query.offset,
    );
    return { items: page.rows.map(deliveryOf), totalCount: page.total };
  }

  *countPending(target: string): Sql<number> {
    const row = yield* one<{ n: number }>(
      `SELECT CAST(count(*) AS INTEGER) AS n FROM event_deliveries WHERE target = ? AND state = 'pending'`,
      [target],
    );
    return row?.n ?? 0;
  }

  *deleteTarget(target: string): Sql<void> {
    yield* run(`DELETE FROM event_deliveries WHERE target = ?`, [target]);
  }

  *pruneDelivered(olderThanMs: number): Sql<number> {
    return yield* run(
      `DELETE FROM event_deliveries WHERE state = 'delivered' AND delivered_at < ${this.dialect.msFromNow}`,
      [-olderThanMs],
    );
  }
}
