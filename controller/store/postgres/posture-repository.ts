/**
 * Posture data on PostgreSQL: posture-data-queries.ts's statements, behind the cache rules by which several
 * controllers share one database (cross-instance-caches.ts).
 *
 * `load`, which every posture report and session request runs, is one query, and what it read is kept per
 * identity as SQLite keeps it (posture-data-cache.ts). Several controllers write these rows: every write drops
 * the identity's entry and announces it to the others, who drop theirs.
 *
 * A report that repeats the stored facts (`refreshReported`) writes nothing at once: the moved time goes into
 * the cached snapshot (once a second at most per fact, as on SQLite) and into a queue that one statement
 * writes every REPORTED_TIMES_FLUSH_MS for every identity, a time never moving back (another instance may
 * have written a newer report meanwhile). It is not announced: only people read those times, and an entry
 * dropped for another reason reads the time written, at most that much older.
 */
import { AsyncResource } from 'node:async_hooks';
import type { PgDatabase } from './pg-database.js';
import { CACHE_KINDS, CrossInstanceCaches } from './cross-instance-caches.js';
import { afterRepeat, slotKey } from '../reported-times.js';
import type {
  ApiSessionPatch,
  FactSlotRef,
  PostureDataRepository,
  PostureRepository,
} from '../posture-repository.js';
import type {
  DomainData,
  IdentityPostureData,
  MacData,
  OsData,
  ProcessData,
  ReportedFactData,
} from '../../posture-model.js';
import {
  EdgeSessionQueries,
  FailedRequestQueries,
  ServiceChangeQueries,
} from '../repositories/posture-record-queries.js';
import { FoundEdgeSessions } from './found-edge-sessions.js';
import {
  domainRow,
  macRow,
  osRow,
  processRowOf,
  reportedFactRow,
  type FactRow,
} from '../rows/posture-rows.js';
import { PostureDataQueries, type ReportedTime } from '../repositories/posture-data-queries.js';
import { PostureDataCache } from '../repositories/posture-data-cache.js';
import { POSTGRES } from '../sql/dialect.js';
import { postgresFace, type AsyncFace } from '../sql/faces.js';

const KIND = CACHE_KINDS.postureData;
/** How often the times of repeated reports are written, all identities' in one statement. */
export const REPORTED_TIMES_FLUSH_MS = 1_000;

class PgPostureDataRepository implements PostureDataRepository {
  private readonly rows: AsyncFace<PostureDataQueries>;
  private readonly cache = new PostureDataCache();
  /** times to write, by identity and slot (a later report of the same slot replaces an earlier) */
  private readonly queuedTimes = new Map<string, ReportedTime>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly scope = new AsyncResource('PostureReportedTimes');
  /** one query for all of them, read from the database (what they read is kept nowhere) */
  readonly loadMany;
  readonly identityOfApiSession;
  readonly accessDigest;
  readonly setAccessDigest;
  readonly identitiesWithApiSessions;

  constructor(
    db: PgDatabase,
    private readonly caches: CrossInstanceCaches,
  ) {
    this.rows = postgresFace(new PostureDataQueries(POSTGRES), db);
    this.loadMany = this.rows.readMany;
    this.identityOfApiSession = this.rows.identityOfApiSession;
    this.accessDigest = this.rows.accessDigest;
    this.setAccessDigest = this.rows.setAccessDigest;
    this.identitiesWithApiSessions = this.rows.identitiesWithApiSessions;
    caches.register(KIND, (id) => {
      if (id === undefined) this.cache.clear();
      else this.cache.forget(id);
    });
  }

  async load(identityId: string): Promise<IdentityPostureData> {
    const generation = this.caches.readable(KIND);
    if (generation !== undefined) {
      const cached = this.cache.get(identityId);
      if (cached) return cached;
    }
    const data = await this.rows.read(identityId);
    if (this.caches.mayKeep(KIND, generation)) this.cache.keep(identityId, data);
    return data;
  }

  /** Writes the queued times of repeated reports now (the timer's work; a closing store's last). */
  flushReportedTimes(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const queued = [...this.queuedTimes.values()];
    this.queuedTimes.clear();
    if (queued.length === 0) return this.flushing;
    this.flushing = this.flushing
      .then(() => this.rows.writeTimes(queued))
      // The pool is gone (closing) or the database away: these times are lost, as a crash would lose them;
      // the next repeated report queues its own.
      .then(
        () => undefined,
        () => undefined,
      );
    return this.flushing;
  }

  setOs(identityId: string, os: OsData): Promise<void> {
    return this.setFact(identityId, osRow(os));
  }

  setMac(identityId: string, mac: MacData): Promise<void> {
    return this.setFact(identityId, macRow(mac));
  }

  setDomain(identityId: string, domain: DomainData): Promise<void> {
    return this.setFact(identityId, domainRow(domain));
  }

  setReportedFact(identityId: string, typeId: string, fact: ReportedFactData): Promise<void> {
    return this.setFact(identityId, reportedFactRow(typeId, fact));
  }

  setProcess(identityId: string, p: ProcessData): Promise<void> {
    return this.written(identityId, this.rows.setProcess(identityId, processRowOf(p)));
  }

  /** Written behind (see the top): the cached snapshot moves now, the rows within REPORTED_TIMES_FLUSH_MS. */
  async refreshReported(identityId: string, slots: readonly FactSlotRef[], at: Date): Promise<void> {
    const cached = this.cache.peek(identityId);
    const next = cached && afterRepeat(cached, slots, at);
    if (cached && !next) return;
    const time = at.toISOString();
    for (const slot of slots)
      this.queuedTimes.set(`${identityId}\n${slotKey(slot)}`, { identityId, slot, at: time });
    if (next) this.cache.replace(identityId, next);
    // Armed in the store's own async context, not the request's: the write is no request's.
    this.flushTimer ??= this.scope.runInAsyncScope(() =>
      setTimeout(() => void this.flushReportedTimes(), REPORTED_TIMES_FLUSH_MS).unref(),
    );
  }

  deleteProcess(identityId: string, path: string): Promise<void> {
    return this.written(identityId, this.rows.deleteProcess(identityId, path));
  }

  /**
   * Once `write` is done: if it changed a row, the identity's cached snapshot is dropped here and announced to
   * the others (a session request's `updateApiSession` for a row that exists changes none).
   */
  private async written(identityId: string, write: Promise<number>): Promise<void> {
    if ((await write) > 0) await this.caches.changed(KIND, [identityId]);
  }

  updateApiSession(apiSessionId: string, identityId: string, patch: ApiSessionPatch): Promise<void> {
    return this.written(identityId, this.rows.updateApiSession(apiSessionId, identityId, patch));
  }

  clearMfa(identityId: string): Promise<void> {
    return this.written(identityId, this.rows.clearMfa(identityId));
  }

  async deleteApiSession(apiSessionId: string): Promise<void> {
    const owner = await this.rows.deleteApiSession(apiSessionId);
    if (owner !== undefined) await this.caches.changed(KIND, [owner]);
  }

  async deleteIdentity(identityId: string): Promise<void> {
    await this.rows.deleteIdentity(identityId);
    // Announced whatever was deleted: the statement counts the API-session rows only, not the facts with them.
    await this.caches.changed(KIND, [identityId]);
  }

  async deleteOrphans(): Promise<number> {
    const owners = await this.rows.deleteOrphans();
    if (owners.length > 0) await this.caches.changed(KIND, [...new Set(owners)]);
    return owners.length;
  }

  private setFact(identityId: string, row: FactRow): Promise<void> {
    return this.written(identityId, this.rows.setFact(identityId, row));
  }
}

export class PgPostureRepository implements PostureRepository {
  readonly data: PgPostureDataRepository;
  readonly sessions: AsyncFace<EdgeSessionQueries>;
  readonly failures: AsyncFace<FailedRequestQueries>;
  readonly changes: AsyncFace<ServiceChangeQueries>;

  /** Without `caches` (which nothing feeds) every read goes to the database. */
  constructor(
    readonly db: PgDatabase,
    caches: CrossInstanceCaches = new CrossInstanceCaches(db, ''),
  ) {
    this.data = new PgPostureDataRepository(db, caches);
    this.sessions = postgresFace(new EdgeSessionQueries(POSTGRES, new FoundEdgeSessions(caches)), db);
    this.failures = postgresFace(new FailedRequestQueries(POSTGRES), db);
    this.changes = postgresFace(new ServiceChangeQueries(), db);
  }
}
