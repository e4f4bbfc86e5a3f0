/**
 * Delivery of the access outbox (migrations/006-outbox.ts) after commit. The outbox triggers fire inside
 * the writing transaction and only call `schedule()`; the delivery runs on a later microtask, when the
 * synchronous transaction has committed (or rolled back, leaving no rows). It reads the rows past its cursor
 * and publishes them on the controller's event bus, in order: `sessions.added`, `sessions.removed` and
 * `access.changed`. Routers and agents hear of a revocation from here, whatever code path made it.
 */
import type { ControllerContext } from '../context.js';
import { onOutboxWritten, type Db } from '../store/database.js';

interface OutboxRow {
  seq: number;
  kind: 'session.added' | 'session.removed' | 'access.changed';
  entity_id: string;
  identity_id: string;
  api_session_id: string | null;
  at: string;
}

/** Rows kept after delivery, for a look at recent history; older ones are trimmed as new ones arrive. */
const KEEP_DELIVERED = 10_000;
/** Rows read per pass, so a burst (a policy change revoking thousands) is published in bounded slices. */
const PAGE = 2_000;

export class AccessOutbox {
  private cursor: number;
  private trimmedTo = 0;
  private scheduled = false;
  private closed = false;
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly ctx: ControllerContext,
  ) {
    this.stmts = {
      last: db.prepare(`SELECT COALESCE(MAX(seq), 0) AS seq FROM access_outbox`),
      after: db.prepare(`SELECT * FROM access_outbox WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`),
      trim: db.prepare(`DELETE FROM access_outbox WHERE seq <= ?`),
    };
    // What happened before this start was delivered to nobody who is still listening: start at the end.
    this.cursor = (this.stmts.last.get() as { seq: number }).seq;
    onOutboxWritten(db, () => this.schedule());
  }

  /** Called from inside a transaction: deliver once it is over. */
  schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    queueMicrotask(() => this.deliver());
  }

  /** Publishes every committed row past the cursor. */
  deliver(): void {
    this.scheduled = false;
    if (this.closed || !this.db.open) return;
    // A transaction still open (a caller that awaited inside one cannot, but be safe): wait for its end.
    if (this.db.inTransaction) return void setImmediate(() => this.schedule());
    for (;;) {
      const rows = this.stmts.after.all(this.cursor) as OutboxRow[];
      if (rows.length === 0) break;
      this.cursor = rows[rows.length - 1]!.seq;
      this.publish(rows);
      if (rows.length < PAGE) break;
    }
    // Trimmed now and then, not per delivery: every write here costs a commit.
    if (this.cursor - this.trimmedTo > 2 * KEEP_DELIVERED) {
      this.trimmedTo = this.cursor - KEEP_DELIVERED;
      this.stmts.trim.run(this.trimmedTo);
    }
  }

  close(): void {
    this.closed = true;
    if (this.db.open) onOutboxWritten(this.db, undefined);
  }

  /** Consecutive rows of one kind go out as one event, so 1,000 revocations are one message per router. */
  private publish(rows: readonly OutboxRow[]): void {
    const { events, log } = this.ctx;
    let i = 0;
    while (i < rows.length) {
      const kind = rows[i]!.kind;
      let j = i;
      while (j < rows.length && rows[j]!.kind === kind) j++;
      const run = rows.slice(i, j);
      i = j;
      try {
        if (kind === 'session.added')
          events.emit(
            'sessions.added',
            run.map((r) => r.entity_id),
          );
        else if (kind === 'session.removed')
          events.emit(
            'sessions.removed',
            run.map((r) => ({
              id: r.entity_id,
              identityId: r.identity_id,
              apiSessionId: r.api_session_id ?? '',
            })),
          );
        else for (const r of run) events.emit('access.changed', r.identity_id, new Date(r.at));
      } catch (err) {
        // A listener's failure must not stop the others' deliveries.
        log.error({ err, kind }, 'an access event listener failed');
      }
    }
  }
}
