/**
 * The rules every in-memory cache of the PostgreSQL store follows, so that several controller instances can
 * share one database and still answer the hot requests from memory:
 *
 * - **Only while listening.** Entries are kept and answered only while this instance LISTENs on
 *   `postern_cache` (the access outbox's connection). When that connection is lost, every cache is emptied and
 *   bypassed (each read goes to the database) until LISTEN works again; then they are emptied once more and
 *   fill again. What another instance announced while nobody listened is never answered from memory.
 * - **Never inside a transaction.** A read inside a transaction (a grant confirming its caller under the
 *   identity's lock, a report's evaluation) goes to the database and fills nothing: what decides a write is
 *   read in the write's snapshot, as without caches.
 * - **A write announces itself.** A write forgets its entries here once written and again after its transaction
 *   commits, and announces (kind, id) to the other instances with `pg_notify` in the same transaction, just
 *   before COMMIT: PostgreSQL delivers it when, and only if, the write commits. The others forget those
 *   entries on hearing it.
 * - **A read that raced a change is not kept.** Each kind has a generation moved by every forget; a read keeps
 *   its answer only if the generation it started from is still current (a change heard while the query was
 *   in flight would otherwise be overwritten by the older answer).
 *
 * What remains is the delivery delay of a notification (PostgreSQL signals the listeners at commit; on one
 * machine well under a millisecond): a read on another instance in that window may still answer the old entry,
 * as a read that started just before the commit would without caches.
 */
import type { PgDatabase } from './pg-database.js';
import { run, type Sql } from '../sql/statement.js';

/** The NOTIFY channel cache announcements go on: lines of `instance|kind|id` (`*` for the whole kind). */
export const CACHE_CHANNEL = 'postern_cache';

/**
 * The kinds cached apart from document kinds (which go by their table's name), as every instance names them.
 * An API session's end takes its posture row with it (a cascading foreign key): it announces both.
 */
export const CACHE_KINDS = {
  apiSessions: 'api_sessions',
  postureData: 'posture_data',
  /**
   * Edge sessions by API session (an existing session is handed out again without a read). Ending an API
   * session cascades to its edge sessions unannounced: harmless, as authentication refuses that API session
   * before its edge sessions are looked up, and the entries age out of the bounded cache.
   */
  edgeSessions: 'edge_sessions',
} as const;

/** NOTIFY payloads must stay under 8000 bytes: announcements are sent in slices of this many characters. */
const PAYLOAD_CHARS = 7_000;

/** How a cache forgets: one entry, or everything (`undefined`). */
export type Forget = (id: string | undefined) => void;

export class CrossInstanceCaches {
  private readonly kinds = new Map<string, Forget>();
  private readonly generations = new Map<string, number>();
  /** LISTEN is up and nothing was missed since the caches were last emptied */
  private listening = false;

  constructor(
    private readonly db: PgDatabase,
    readonly instanceId: string,
  ) {}

  /** A cache of `kind` (a name the other instances use too), and how it forgets. */
  register(kind: string, forget: Forget): void {
    this.kinds.set(kind, forget);
    this.generations.set(kind, 0);
  }

  /**
   * Whether a read of `kind` may be answered from memory now; when it may, the generation to hand to `mayKeep`
   * with the answer read from the database on a miss. undefined: read the database, keep nothing.
   */
  readable(kind: string): number | undefined {
    if (!this.listening || this.db.inTransaction()) return undefined;
    return this.generations.get(kind);
  }

  /** Whether an answer read from the database, starting at `generation`, may be kept. */
  mayKeep(kind: string, generation: number | undefined): boolean {
    return generation !== undefined && this.listening && this.generations.get(kind) === generation;
  }

  /**
   * This instance has just written these entries of `kind` (`'*'`: any of them; called after the write's
   * statement): forgets them now and after the commit, and announces them to the other instances (at COMMIT
   * inside a transaction, at once outside one, where the write has committed already).
   */
  async changed(kind: string, ids: readonly string[] | '*'): Promise<void> {
    await this.publish(this.queued(kind, ids));
  }

  /** `changed` as a repository step (store/sql/statement.ts), for repositories written once for both stores. */
  *announced(kind: string, ids: readonly string[] | '*'): Sql<void> {
    const now = this.queued(kind, ids);
    if (now.length > 0) yield* run(PUBLISH, [slicesOf(now)]);
  }

  /** Forgets now, queues the announcement inside a transaction (answers nothing) or answers it to send now. */
  private queued(kind: string, ids: readonly string[] | '*'): string[] {
    const forget = () => this.forget(kind, ids);
    forget();
    const lines = (ids === '*' ? ['*'] : ids).map((id) => `${this.instanceId}|${kind}|${id}`);
    if (lines.length === 0) return [];
    const pending = this.db.transactionLocal(this, (beforeCommit) => {
      const queued: string[] = [];
      beforeCommit(() => this.publish(queued));
      return queued;
    });
    if (!pending) return lines;
    pending.push(...lines);
    this.db.afterCommit(forget);
    return [];
  }

  /** A notification on CACHE_CHANNEL. */
  heard(payload: string): void {
    for (const line of payload.split('\n')) {
      const [by, kind, id] = line.split('|');
      if (by === this.instanceId || kind === undefined || id === undefined) continue;
      this.forget(kind, id === '*' ? '*' : [id]);
    }
  }

  /**
   * The listening connection is up (after LISTEN) or lost: either way every cache is emptied; while it is
   * lost nothing is answered from memory.
   */
  setListening(up: boolean): void {
    this.listening = false;
    for (const kind of this.kinds.keys()) this.forget(kind, '*');
    this.listening = up;
  }

  /** Whether every announcement is heard now (false while the listening connection is lost). */
  isListening(): boolean {
    return this.listening;
  }

  /** Forgets every entry of `kind` (a change announced on another channel, such as the catalogue's). */
  forgetKind(kind: string): void {
    this.forget(kind, '*');
  }

  private forget(kind: string, ids: readonly string[] | '*'): void {
    const forget = this.kinds.get(kind);
    if (!forget) return;
    this.generations.set(kind, this.generations.get(kind)! + 1);
    if (ids === '*') forget(undefined);
    else for (const id of ids) forget(id);
  }

  /** One statement, however many slices the lines make. */
  private async publish(lines: readonly string[]): Promise<void> {
    if (lines.length > 0) await this.db.run(PUBLISH, [slicesOf(lines)]);
  }
}

/** Sends each slice of announcement lines on CACHE_CHANNEL. */
const PUBLISH = `SELECT pg_notify('${CACHE_CHANNEL}', payload) FROM unnest(?::text[]) AS payload`;

/** Lines joined into payloads under NOTIFY's size limit. */
function slicesOf(lines: readonly string[]): string[] {
  const slices: string[] = [];
  let slice = '';
  for (const line of lines) {
    if (slice && slice.length + line.length + 1 > PAYLOAD_CHARS) {
      slices.push(slice);
      slice = '';
    }
    slice = slice ? `${slice}\n${line}` : line;
  }
  slices.push(slice);
  return slices;
}
