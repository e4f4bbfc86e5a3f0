import type { Db } from '../database.js';
import type { DeliveryListQuery, SyncDeliveryRepository } from '../delivery-repository.js';
import type { Delivery, NewDelivery } from '../../event-delivery-model.js';

interface Row {
  seq: number;
  id: string;
  target: string;
  event_id: string;
  event_type: string;
  body: string;
  state: Delivery['state'];
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  created_at: string;
  delivered_at: number | null;
}

const toDelivery = (r: Row): Delivery => ({
  id: r.id,
  seq: r.seq,
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

/**
 * SQLite's delivery queue (migration 17). One controller owns the file, so a claim needs no row locks; the
 * lease still matters: it is what a restart finds expired and claims again. Times are this host's clock.
 */
export class SqliteDeliveryRepository implements SyncDeliveryRepository {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO event_deliveries (id, target, event_id, event_type, body, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      heads: db.prepare(
        `SELECT d.* FROM event_deliveries d
         WHERE d.seq IN (SELECT MIN(seq) FROM event_deliveries WHERE state = 'pending' GROUP BY target)
           AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
           AND d.target NOT IN (SELECT value FROM json_each(?))
         ORDER BY d.seq LIMIT ?`,
      ),
      lease: db.prepare(`UPDATE event_deliveries SET lease_owner = ?, lease_until = ? WHERE seq = ?`),
      delivered: db.prepare(
        `UPDATE event_deliveries SET state = 'delivered', attempts = attempts + 1, delivered_at = ?,
           last_error = NULL, lease_owner = NULL, lease_until = NULL
         WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      ),
      failed: db.prepare(
        `UPDATE event_deliveries SET state = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?,
           lease_owner = NULL, lease_until = NULL
         WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      ),
      release: db.prepare(
        `UPDATE event_deliveries SET next_attempt_at = ?, lease_owner = NULL, lease_until = NULL
         WHERE id = ? AND lease_owner = ? AND state = 'pending'`,
      ),
      redeliver: db.prepare(
        `INSERT INTO event_deliveries (id, target, event_id, event_type, body, next_attempt_at, created_at)
         SELECT ?, target, event_id, event_type, body, ?, created_at FROM event_deliveries
         WHERE id = ? AND state <> 'pending'`,
      ),
      retire: db.prepare(`DELETE FROM event_deliveries WHERE id = ? AND state <> 'pending'`),
      get: db.prepare(`SELECT * FROM event_deliveries WHERE id = ?`),
      countPending: db.prepare(
        `SELECT COUNT(*) AS n FROM event_deliveries WHERE target = ? AND state = 'pending'`,
      ),
      deleteTarget: db.prepare(`DELETE FROM event_deliveries WHERE target = ?`),
      prune: db.prepare(`DELETE FROM event_deliveries WHERE state = 'delivered' AND delivered_at < ?`),
    };
  }

  enqueue(deliveries: readonly NewDelivery[]): void {
    const now = Date.now();
    for (const d of deliveries)
      this.stmts.insert.run(d.id, d.target, d.eventId, d.eventType, d.body, now, d.createdAt.toISOString());
  }

  claim(owner: string, leaseMs: number, limit: number, exceptTargets: readonly string[]): Delivery[] {
    const now = Date.now();
    const rows = this.stmts.heads.all(now, now, JSON.stringify(exceptTargets), limit) as Row[];
    for (const r of rows) this.stmts.lease.run(owner, now + leaseMs, r.seq);
    return rows.map(toDelivery);
  }

  delivered(id: string, owner: string): boolean {
    return this.stmts.delivered.run(Date.now(), id, owner).changes === 1;
  }

  failed(id: string, owner: string, error: string, retryInMs: number, dead: boolean): boolean {
    const state = dead ? 'dead' : 'pending';
    return this.stmts.failed.run(state, error, Date.now() + retryInMs, id, owner).changes === 1;
  }

  release(id: string, owner: string, retryInMs: number): void {
    this.stmts.release.run(Date.now() + retryInMs, id, owner);
  }

  redeliver(id: string): Delivery | undefined {
    // A new row at the end of the target's order (the old one's seq may be long behind), keeping the event's
    // id so a receiver that already has it can tell; the old row goes so the list shows one.
    const fresh = `${id.split('~')[0]}~${Date.now().toString(36)}`;
    if (this.stmts.redeliver.run(fresh, Date.now(), id).changes !== 1) return undefined;
    this.stmts.retire.run(id);
    return this.get(fresh);
  }

  get(id: string): Delivery | undefined {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && toDelivery(row);
  }

  list(query: DeliveryListQuery): { items: Delivery[]; totalCount: number } {
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
    const total = this.db.prepare(`SELECT COUNT(*) AS n FROM event_deliveries ${clause}`).get(...params) as {
      n: number;
    };
    const rows = this.db
      .prepare(`SELECT * FROM event_deliveries ${clause} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...params, query.limit, query.offset) as Row[];
    return { items: rows.map(toDelivery), totalCount: total.n };
  }

  countPending(target: string): number {
    return (this.stmts.countPending.get(target) as { n: number }).n;
  }

  deleteTarget(target: string): void {
    this.stmts.deleteTarget.run(target);
  }

  pruneDelivered(olderThanMs: number): number {
    return this.stmts.prune.run(Date.now() - olderThanMs).changes;
  }
}
