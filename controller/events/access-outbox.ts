/**
 * Delivery of the access outbox (migrations/006-outbox.ts) after commit. The outbox triggers fire inside
 * the writing transaction and only call `schedule()`; the delivery runs on a later microtask, when the
 * synchronous transaction has committed (or rolled back, leaving no rows). It reads the rows past its cursor
 * and publishes them on the controller's event bus, in order: `sessions.added`, `sessions.removed` and
 * `access.changed`. Routers and agents hear of a revocation from here, whatever code path made it.
 */
import type { ControllerContext } from '../platform/context.js';
import { onOutboxWritten, type Db } from '../store/database.js';
import { publishOutboxRows, type OutboxRow } from './outbox-events.js';

interface SqliteOutboxRow extends OutboxRow {
  seq: number;
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
      const rows = this.stmts.after.all(this.cursor) as SqliteOutboxRow[];
      if (rows.length === 0) break;
      this.cursor = rows[rows.length - 1]!.seq;
      publishOutboxRows(this.ctx, rows);
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
}
