/**
 * Delivery of PostgreSQL's access outbox (store/postgres/migrations/001-initial.ts) to this controller's event
 * bus: `sessions.added`, `sessions.removed` and `access.changed`, grouped as the SQLite delivery groups them
 * (outbox-events.ts). Every controller sharing the database runs one and delivers every committed row,
 * whichever controller wrote it, its own included: routers and agents connected to any controller hear of a
 * revocation made through any other.
 *
 * Reading: the triggers NOTIFY `postern_outbox` when the writing transaction commits; a dedicated connection
 * LISTENs and each notification wakes a read of the rows past the cursor. A row's seq is taken when it is
 * written, not when it commits, so the cursor is (xact, seq) and a read takes only rows whose transaction
 * is below the snapshot's xmin: every such transaction has ended, so no row can later appear behind the
 * cursor. A row of a transaction that commits while an older one is still open waits for that one to end.
 *
 * Nothing is lost when a notification is (the listening connection dropped, or the xmin moved without a
 * write): a short poll reads too, and so does each reconnection, from the same cursor.
 */
import { CATALOGUE_CHANNEL } from '../store/postgres/pg-store.js';
import { CACHE_CHANNEL } from '../store/postgres/cross-instance-caches.js';
import { AsyncResource } from 'node:async_hooks';
import type pg from 'pg';
import type { ControllerContext } from '../platform/context.js';
import { publishOutboxRows, type OutboxRow } from './outbox-events.js';

const CHANNEL = 'postern_outbox';
/** Rows read per pass, so a burst (a policy change revoking thousands) is published in bounded slices. */
const PAGE = 2_000;
/** Rows kept after delivery, for a look at recent history, as SQLite keeps them. */
const KEEP_DELIVERED = 10_000;

export interface PgAccessOutboxOptions {
  /** how often the rows are read without a notification (the safety net) */
  pollMs?: number;
  /** the first wait before listening again after the connection dropped; doubled per failure */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /**
   * Heard on the same connection: an instance announced a change to services, policies or checks (its id
   * the payload; '' after a reconnect, when an announcement may have been missed).
   */
  onCatalogueChange?: (announcedBy: string) => void;
  /** Heard on the same connection: an instance announced entries the caches must drop (the payload). */
  onCacheNotice?: (payload: string) => void;
  /**
   * The connection listens (true, once every LISTEN is in place: nothing announced from now on is missed)
   * or was lost (false, at once: announcements may be missed until it listens again).
   */
  onListening?: (up: boolean) => void;
}

interface PgOutboxRow extends OutboxRow {
  /** xid8 and bigint: node-postgres gives both as text, which is what the next query passes back */
  xact: string;
  seq: string;
}

/** Where delivery stands: the last row delivered, in (xact, seq) order. */
interface Cursor {
  xact: string;
  seq: string;
}

/**
 * The oldest transaction still running in THIS database (as xid8), or the snapshot's xmax when none is: every
 * transaction below it has ended. The cluster-wide xmin would do too, but one long transaction in another
 * database on the same server (or an administrator's session left open there) would hold revocations back
 * here for as long as it lasts. A running transaction's 64-bit id is matched to a session of this database
 * through its 32-bit `backend_xid` (pg_stat_activity shows it for sessions of the same role: the controllers').
 */
const DATABASE_HORIZON = `
  SELECT coalesce(
    (SELECT xip FROM pg_snapshot_xip(snap.s) AS xip
      WHERE (xip::text::numeric % 4294967296) IN (
        SELECT backend_xid::text::numeric FROM pg_stat_activity
        WHERE datname = current_database() AND backend_xid IS NOT NULL)
      ORDER BY xip LIMIT 1),
    pg_snapshot_xmax(snap.s))
  FROM (SELECT pg_current_snapshot() AS s) snap`;

/**
 * The committed rows past the cursor, final ones only, oldest transaction first. `$3` is the snapshot taken
 * at start: rows it sees were written before start and are not replayed; rows of transactions it saw still
 * running are delivered once they commit.
 */
const READ = `
  SELECT xact::text, seq::text, kind, entity_id, identity_id, api_session_id, at FROM access_outbox
  WHERE (xact, seq) > ($1::xid8, $2::bigint)
    AND xact < (${DATABASE_HORIZON})
    AND NOT pg_visible_in_snapshot(xact, $3::pg_snapshot)
  ORDER BY xact, seq LIMIT ${PAGE}`;

/**
 * Old rows go once this controller has delivered them and they are far behind the newest. A controller that
 * fell more than KEEP_DELIVERED rows behind (cut off from the database while the others were not) may find
 * some gone; one that restarts does not read old rows at all.
 */
const TRIM = `
  DELETE FROM access_outbox
  WHERE (xact, seq) <= ($1::xid8, $2::bigint)
    AND seq <= (SELECT max(seq) FROM access_outbox) - ${KEEP_DELIVERED}`;

export class PgAccessOutbox {
  private readonly onCatalogueChange: ((announcedBy: string) => void) | undefined;
  private readonly onCacheNotice: ((payload: string) => void) | undefined;
  private readonly onListening: ((up: boolean) => void) | undefined;
  private readonly pollMs: number;
  private readonly reconnectMinMs: number;
  private readonly reconnectMaxMs: number;
  private cursor: Cursor | undefined;
  private startSnapshot = '';
  private listener: pg.PoolClient | undefined;
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private backoffMs: number;
  private poll: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  /** a read was asked for while one ran: read again once it ends */
  private again = false;
  private deliveredSinceTrim = 0;
  /** the last read failed (logged once until one succeeds) */
  private failing = false;
  private closed = false;
  /**
   * Reads run in the async context this outbox was made in, never a caller's: the event bus queues an event
   * emitted inside a transaction until that transaction commits, and drops it if it rolls back, while these
   * rows are already past the cursor.
   */
  private readonly scope = new AsyncResource('PgAccessOutbox');

  constructor(
    private readonly pool: pg.Pool,
    private readonly ctx: Pick<ControllerContext, 'events' | 'log'>,
    options: PgAccessOutboxOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
    this.onCatalogueChange = options.onCatalogueChange;
    this.onCacheNotice = options.onCacheNotice;
    this.onListening = options.onListening;
    this.reconnectMinMs = options.reconnectMinMs ?? 100;
    this.reconnectMaxMs = options.reconnectMaxMs ?? 5_000;
    this.backoffMs = this.reconnectMinMs;
  }

  /** Starts at the current end: what committed before this call is not published. */
  async start(): Promise<void> {
    const { rows } = await this.pool.query<{ snapshot: string; xmin: string }>(
      `SELECT pg_current_snapshot()::text AS snapshot, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`,
    );
    // Every transaction below xmin has ended, so every row from one is seen by the start snapshot.
    this.startSnapshot = rows[0]!.snapshot;
    this.cursor = { xact: rows[0]!.xmin, seq: '0' };
    await this.listen();
    this.poll = setInterval(() => this.wake(), this.pollMs);
    this.poll.unref();
  }

  /** Reads and publishes every row that is final now; resolves once published. */
  async catchUp(): Promise<void> {
    this.wake();
    await this.draining;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    clearTimeout(this.reconnectTimer);
    await this.connecting;
    this.dropListener();
    await this.draining;
  }

  /** Asks for a read; one runs at a time, and one asked for meanwhile runs after it. */
  private wake(): void {
    if (this.closed || this.cursor === undefined) return;
    this.again = true;
    this.draining ??= this.scope.runInAsyncScope(() => this.drainWhileAsked());
  }

  private async drainWhileAsked(): Promise<void> {
    try {
      while (this.again && !this.closed) {
        this.again = false;
        await this.drain();
      }
      if (this.failing) this.ctx.log.info('the access outbox reads again');
      this.failing = false;
    } catch (err) {
      // The database is unreachable or restarting: the poll and the reconnection read again. Said once, not
      // four times a second.
      this.again = false;
      if (!this.failing) this.ctx.log.warn({ err }, 'reading the access outbox failed; retrying');
      this.failing = true;
    } finally {
      this.draining = undefined;
    }
    // Asked for between the last read and here (the loop had ended): read once more.
    if (this.again) this.wake();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const cursor = this.cursor!;
      const { rows } = await this.pool.query<PgOutboxRow>(READ, [
        cursor.xact,
        cursor.seq,
        this.startSnapshot,
      ]);
      if (rows.length === 0 || this.closed) break;
      const last = rows[rows.length - 1]!;
      this.cursor = { xact: last.xact, seq: last.seq };
      this.deliveredSinceTrim += rows.length;
      publishOutboxRows(this.ctx, rows);
      if (rows.length < PAGE) break;
    }
    // Now and then, not per delivery: every controller trims, and each delete is a write.
    if (this.deliveredSinceTrim > KEEP_DELIVERED && !this.closed) {
      this.deliveredSinceTrim = 0;
      await this.pool.query(TRIM, [this.cursor!.xact, this.cursor!.seq]);
    }
  }

  /** Takes a connection of the pool for LISTEN and keeps it; throws when it cannot. */
  private listen(): Promise<void> {
    const connecting = (async () => {
      const client = await this.pool.connect();
      client.on('notification', (message) => {
        if (message.channel === CHANNEL) this.wake();
        else if (message.channel === CATALOGUE_CHANNEL) this.onCatalogueChange?.(message.payload ?? '');
        else if (message.channel === CACHE_CHANNEL) this.onCacheNotice?.(message.payload ?? '');
      });
      // A checked-out client's errors are ours to handle: unheard, one would end the process.
      client.on('error', (err) => this.lost(client, err));
      client.on('end', () => this.lost(client));
      try {
        await client.query(`LISTEN ${CHANNEL}`);
        if (this.onCacheNotice) await client.query(`LISTEN ${CACHE_CHANNEL}`);
        // From here on every announcement is heard: the caches start afresh (before the catalogue is read again).
        this.onListening?.(true);
        if (this.onCatalogueChange) {
          await client.query(`LISTEN ${CATALOGUE_CHANNEL}`);
          // Whatever was announced while no connection listened is unknown: read the catalogue again.
          this.onCatalogueChange('');
        }
      } catch (err) {
        this.onListening?.(false);
        client.release(true);
        throw err;
      }
      this.listener = client;
    })();
    this.connecting = connecting.finally(() => (this.connecting = undefined)).catch(() => undefined);
    return connecting;
  }

  /** The listening connection failed or closed: let it go, listen again after a pause, then catch up. */
  private lost(client: pg.PoolClient, err?: Error): void {
    if (this.listener !== client) return;
    // Before anything else: from now on an announcement may go unheard, so no cache may answer.
    this.onListening?.(false);
    this.listener = undefined;
    client.release(true);
    if (this.closed) return;
    this.ctx.log.warn({ err }, 'the access outbox lost its listening connection; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.scope.runInAsyncScope(() => {
        if (this.closed) return;
        this.listen().then(
          () => {
            this.backoffMs = this.reconnectMinMs;
            if (this.closed) this.dropListener();
            // Notifications sent while nobody listened are gone; the cursor knows what was delivered.
            else this.wake();
          },
          (err: unknown) => {
            this.ctx.log.warn({ err }, 'the access outbox could not listen again; retrying');
            if (!this.closed) this.scheduleReconnect();
          },
        );
      });
    }, wait);
    this.reconnectTimer.unref();
  }

  private dropListener(): void {
    const client = this.listener;
    this.listener = undefined;
    this.onListening?.(false);
    // Destroyed, not returned: a connection still LISTENing would wake whoever takes it from the pool next.
    client?.release(true);
  }
}
