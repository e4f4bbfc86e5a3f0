import type { DeliveryListQuery, DeliveryRepository } from '../delivery-repository.js';
import type { Delivery, NewDelivery } from '../../event-delivery-model.js';
import type { PgDatabase } from './pg-database.js';

interface Row {
  seq: string;
  id: string;
  target: string;
  event_id: string;
  event_type: string;
  body: string;
  state: Delivery['state'];
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: string;
  delivered_at: Date | null;
}

const toDelivery = (r: Row): Delivery => ({
  id: r.id,
  seq: Number(r.seq),
  target: r.target,
  eventId: r.event_id,
  eventType: r.event_type,
  body: r.body,
  state: r.state,
  attempts: r.attempts,
  nextAttemptAt: new Date(r.next_attempt_at),
  lastError: r.last_error,
  createdAt: new Date(r.created_at),
  deliveredAt: r.delivered_at === null ? null : new Date(r.delivered_at),
});

const ms = (placeholder: string) => `${placeholder}::double precision * interval '1 millisecond'`;

/**
 * PostgreSQL's delivery queue (migration 12), shared by every instance. A claim is one statement: each
 * target's oldest pending row, due and not leased, locked with SKIP LOCKED so two instances claiming at once
 * take different rows rather than both taking one; the lease then keeps every other instance off that
 * target until it ends. Times are the database's clock (clock_timestamp(): a statement's own moment).
 */
export class PgDeliveryRepository implements DeliveryRepository {
  constructor(private readonly db: PgDatabase) {}

  async enqueue(deliveries: readonly NewDelivery[]): Promise<void> {
    for (const d of deliveries)
      await this.db.run(
        `INSERT INTO event_deliveries (id, target, event_id, event_type, body, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, clock_timestamp(), ?)`,
        [d.id, d.target, d.eventId, d.eventType, d.body, d.createdAt.toISOString()],
      );
  }

  async claim(
    owner: string,
    leaseMs: number,
    limit: number,
    exceptTargets: readonly string[],
  ): Promise<Delivery[]> {
    const rows = await this.db.rows<Row>(
      `WITH heads AS (
         SELECT min(seq) AS seq FROM event_deliveries WHERE state = 'pending' GROUP BY target),
       due AS (
         SELECT d.seq FROM event_deliveries d JOIN heads h ON h.seq = d.seq
         WHERE d.state = 'pending' AND d.next_attempt_at <= clock_timestamp()
           AND (d.lease_until IS NULL OR d.lease_until <= clock_timestamp())
           AND NOT (d.target = ANY (?::text[]))
         ORDER BY d.seq LIMIT ? FOR UPDATE OF d SKIP LOCKED),
       claimed AS (
         UPDATE event_deliveries SET lease_owner = ?, lease_until = clock_timestamp() + ${ms('?')}
         WHERE seq IN (SELECT seq FROM due) RETURNING *)
       SELECT * FROM claimed ORDER BY seq`,
      [exceptTargets, limit, owner, leaseMs],
    );
    return rows.map(toDelivery);
  }

  async delivered(id: string, owner: string): Promise<boolean> {
    const n = await this.db.run(
      `UPDATE event_deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = clock_timestamp(),
         last_error = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      [id, owner],
    );
    return n === 1;
  }

  async failed(id: string, owner: string, error: string, retryInMs: number, dead: boolean): Promise<boolean> {
    const n = await this.db.run(
      `UPDATE event_deliveries SET state = ?, attempts = attempts + 1, last_error = ?,
         next_attempt_at = clock_timestamp() + ${ms('?')}, lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      [dead ? 'dead' : 'pending', error, retryInMs, id, owner],
    );
    return n === 1;
  }

  async release(id: string, owner: string, retryInMs: number): Promise<void> {
    await this.db.run(
      `UPDATE event_deliveries SET next_attempt_at = clock_timestamp() + ${ms('?')}, lease_owner = NULL,
         lease_until = NULL
       WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      [retryInMs, id, owner],
    );
  }

  async redeliver(id: string): Promise<Delivery | undefined> {
    // As SQLite's: a new row at the end of the target's order, the old one retired.
    const fresh = `${id.split('~')[0]}~${Date.now().toString(36)}`;
    const n = await this.db.run(
      `INSERT INTO event_deliveries (id, target, event_id, event_type, body, next_attempt_at, created_at)
       SELECT ?, target, event_id, event_type, body, clock_timestamp(), created_at FROM event_deliveries
       WHERE id = ? AND state <> 'pending'`,
      [fresh, id],
    );
    if (n !== 1) return undefined;
    await this.db.run(`DELETE FROM event_deliveries WHERE id = ? AND state <> 'pending'`, [id]);
    return this.get(fresh);
  }

  async get(id: string): Promise<Delivery | undefined> {
    const row = await this.db.one<Row>(`SELECT * FROM event_deliveries WHERE id = ?`, [id]);
    return row && toDelivery(row);
  }

  async list(query: DeliveryListQuery): Promise<{ items: Delivery[]; totalCount: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.target !== undefined) {
      where.push('target = ?');
      params.push(query.target);
    }
    if (query.state !== undefined) {
      where.push('state = ?');
      params.push(query.state);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = await this.db.one<{ n: string }>(
      `SELECT count(*) AS n FROM event_deliveries ${clause}`,
      params,
    );
    const rows = await this.db.rows<Row>(
      `SELECT * FROM event_deliveries ${clause} ORDER BY seq DESC LIMIT ? OFFSET ?`,
      [...params, query.limit, query.offset],
    );
    return { items: rows.map(toDelivery), totalCount: Number(total?.n ?? 0) };
  }

  async countPending(target: string): Promise<number> {
    const row = await this.db.one<{ n: string }>(
      `SELECT count(*) AS n FROM event_deliveries WHERE target = ? AND state = 'pending'`,
      [target],
    );
    return Number(row?.n ?? 0);
  }

  async deleteTarget(target: string): Promise<void> {
    await this.db.run(`DELETE FROM event_deliveries WHERE target = ?`, [target]);
  }

  async pruneDelivered(olderThanMs: number): Promise<number> {
    return this.db.run(
      `DELETE FROM event_deliveries WHERE state = 'delivered' AND delivered_at < clock_timestamp() - ${ms('?')}`,
      [olderThanMs],
    );
  }
}
