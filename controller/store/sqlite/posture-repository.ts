import type { Db } from '../database.js';
import type {
  ApiSessionPatch,
  FactSlotRef,
  SyncPostureDataRepository,
  SyncPostureRepository,
} from '../posture-repository.js';
import type {
  DomainData,
  IdentityPostureData,
  MacData,
  OsData,
  PostureSnapshot,
  ProcessData,
  ReportedFactData,
  SnapshotParts,
} from '../../posture-model.js';
import {
  EdgeSessionQueries,
  FailedRequestQueries,
  LocalFoundSessions,
  ServiceChangeQueries,
} from '../repositories/posture-record-queries.js';
import {
  domainRow,
  macRow,
  osRow,
  processOf,
  processRowOf,
  putFact,
  reportedFactRow,
  type FactRow,
} from '../rows/posture-rows.js';
import { afterRepeat, slotIn, slotKey } from '../reported-times.js';
import { PostureDataQueries, type ReportedTime } from '../repositories/posture-data-queries.js';
import { PostureDataCache } from '../repositories/posture-data-cache.js';
import { SQLITE } from '../sql/dialect.js';
import { sqliteFace, type SyncFace } from '../sql/faces.js';

/**
 * Whether SQLite gives these strings back unchanged (a lone surrogate comes back as U+FFFD): only then may a
 * write update the cached data instead of dropping it.
 */
const roundTrips = (...texts: string[]) => texts.every((t) => !/\p{Cs}/u.test(t));

/**
 * How far the stored `lastUpdatedAt` of a fact reported again unchanged may fall behind the one in memory:
 * writing it on every report would cost a B-tree write per fact per report, for a time only people read.
 */
const REPEATED_FACT_WRITE_MS = 60_000;

/**
 * Posture data on SQLite: posture-data-queries.ts's statements, run synchronously, behind SQLite's own cache
 * rules (one process owns the file, so nobody else writes behind its back).
 *
 * What was loaded is kept per identity (posture-data-cache.ts). A fact or a known binary's report updates the
 * cached entry with what `read` would build from the row just written; a report repeating stored facts moves
 * their cached time (once a second at most) and writes it at most once a minute per fact (after a restart or
 * an eviction the time read back may be that much older); every other write drops the identity's entry
 * before it runs (the next load reads the database again); the store clears the cache when a transaction
 * rolls back.
 */
class SqlitePostureDataRepository implements SyncPostureDataRepository {
  private readonly rows: SyncFace<PostureDataQueries>;
  private readonly cache = new PostureDataCache();
  /** the identity each API session of a cached identity belongs to */
  private readonly owners = new Map<string, string>();
  /**
   * Per cached identity, the facts whose stored `lastUpdatedAt` is older than the one in memory (a repeated
   * report moved only memory's), with the stored time in ms.
   */
  private readonly storedAt = new Map<string, Map<string, number>>();
  readonly identityOfApiSession;
  readonly accessDigest;
  readonly setAccessDigest;
  readonly identitiesWithApiSessions;

  constructor(db: Db) {
    this.rows = sqliteFace(new PostureDataQueries(SQLITE), db);
    this.identityOfApiSession = this.rows.identityOfApiSession;
    this.accessDigest = this.rows.accessDigest;
    this.setAccessDigest = this.rows.setAccessDigest;
    this.identitiesWithApiSessions = this.rows.identitiesWithApiSessions;
  }

  load(identityId: string): PostureSnapshot {
    let data = this.cache.get(identityId);
    if (!data) {
      data = this.rows.read(identityId);
      const dropped = this.cache.keep(identityId, data);
      if (dropped) this.forgetHeld(dropped);
      for (const apiSessionId of Object.keys(data.apiSessions)) this.owners.set(apiSessionId, identityId);
    }
    return data;
  }

  /** Cached identities as held (memory may be ahead of the rows, see refreshReported), the others read. */
  loadMany(identityIds: readonly string[], parts?: SnapshotParts): Map<string, PostureSnapshot> {
    const found = new Map<string, PostureSnapshot>();
    const missing: string[] = [];
    for (const id of identityIds) {
      const cached = this.cache.peek(id);
      if (cached) found.set(id, cached);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    for (const [id, data] of this.rows.readMany(missing, parts)) found.set(id, data);
    return found;
  }

  /** Forgets every cached identity (after a rolled-back transaction). */
  clearCache(): void {
    this.cache.clear();
    this.owners.clear();
    this.storedAt.clear();
  }

  private forget(identityId: string): void {
    const data = this.cache.forget(identityId);
    if (data) this.forgetHeld(data);
  }

  /** What goes with a dropped entry. */
  private forgetHeld(data: IdentityPostureData): void {
    this.storedAt.delete(data.identityId);
    for (const apiSessionId of Object.keys(data.apiSessions)) this.owners.delete(apiSessionId);
  }

  /**
   * Forgets the cached identity holding the API session's row, if one does: also when the API session itself
   * is deleted, whose foreign key removes the row behind this cache.
   */
  forgetApiSession(apiSessionId: string): void {
    const owner = this.owners.get(apiSessionId);
    if (owner !== undefined) this.forget(owner);
  }

  setOs(identityId: string, os: OsData): void {
    this.setFact(identityId, osRow(os));
  }

  setMac(identityId: string, mac: MacData): void {
    this.setFact(identityId, macRow(mac));
  }

  setDomain(identityId: string, domain: DomainData): void {
    this.setFact(identityId, domainRow(domain));
  }

  setReportedFact(identityId: string, typeId: string, fact: ReportedFactData): void {
    this.setFact(identityId, reportedFactRow(typeId, fact));
  }

  setProcess(identityId: string, p: ProcessData): void {
    const row = processRowOf(p);
    // A binary reported again replaces its entry in place (the order by path stays); anything else is read
    // again from the database.
    const at = this.cache.peek(identityId)?.processes.findIndex((c) => c.path === p.path) ?? -1;
    if (at < 0 || !roundTrips(p.postureCheckId, p.hash)) this.forget(identityId);
    this.rows.setProcess(identityId, row);
    this.storedAt.get(identityId)?.delete(slotKey({ kind: 'process', path: p.path }));
    const still = this.cache.peek(identityId);
    // The cached path is the one the database gave back, equal to this one.
    if (still && at >= 0) {
      const processes = [...still.processes];
      processes[at] = processOf({ ...row, path: processes[at]!.path });
      this.cache.replace(identityId, { ...still, processes });
    }
  }

  refreshReported(identityId: string, slots: readonly FactSlotRef[], at: Date): void {
    const cached = this.cache.peek(identityId);
    const next = cached && afterRepeat(cached, slots, at);
    if (cached && !next) return;
    const due: ReportedTime[] = [];
    for (const slot of slots) {
      const held = cached && slotIn(cached, slot);
      const key = slotKey(slot);
      const stored = this.storedAt.get(identityId)?.get(key) ?? held?.lastUpdatedAt.getTime();
      if (!held || stored === undefined || at.getTime() - stored >= REPEATED_FACT_WRITE_MS) {
        due.push({ identityId, slot, at: at.toISOString() });
        this.storedAt.get(identityId)?.delete(key);
      } else {
        let behind = this.storedAt.get(identityId);
        if (!behind) this.storedAt.set(identityId, (behind = new Map()));
        behind.set(key, stored);
      }
    }
    if (due.length > 0) this.rows.writeTimes(due);
    if (next) this.cache.replace(identityId, next);
  }

  deleteProcess(identityId: string, path: string): void {
    this.forget(identityId);
    this.rows.deleteProcess(identityId, path);
  }

  updateApiSession(apiSessionId: string, identityId: string, patch: ApiSessionPatch): void {
    // Nothing to write when the row is known to exist and no field changes (every posture report asks).
    if (Object.keys(patch).length === 0 && this.owners.get(apiSessionId) === identityId) return;
    // The row may exist under another identity (which it keeps): forget that one too.
    this.forgetApiSession(apiSessionId);
    this.forget(identityId);
    this.rows.updateApiSession(apiSessionId, identityId, patch);
  }

  clearMfa(identityId: string): void {
    this.forget(identityId);
    this.rows.clearMfa(identityId);
  }

  deleteApiSession(apiSessionId: string): void {
    this.forgetApiSession(apiSessionId);
    this.rows.deleteApiSession(apiSessionId);
  }

  deleteIdentity(identityId: string): void {
    this.forget(identityId);
    this.rows.deleteIdentity(identityId);
  }

  deleteOrphans(): number {
    this.clearCache();
    return this.rows.deleteOrphans().length;
  }

  /** Written through: the evaluation that follows a report loads from memory what `read` would build. */
  private setFact(identityId: string, row: FactRow): void {
    if (!roundTrips(row.posture_check_id)) this.forget(identityId);
    this.rows.setFact(identityId, row);
    this.storedAt.get(identityId)?.delete(row.kind);
    const cached = this.cache.peek(identityId);
    if (cached) {
      // A new entry whose one slot putFact replaces (it never changes a slot's object in place).
      const next = { ...cached } as IdentityPostureData;
      putFact(next, row);
      this.cache.replace(identityId, next);
    }
  }
}

export class SqlitePostureRepository implements SyncPostureRepository {
  readonly data;
  readonly sessions;
  readonly failures;
  readonly changes;

  constructor(readonly db: Db) {
    this.data = new SqlitePostureDataRepository(db);
    this.sessions = sqliteFace(new EdgeSessionQueries(SQLITE, new LocalFoundSessions()), db);
    this.failures = sqliteFace(new FailedRequestQueries(SQLITE), db);
    this.changes = sqliteFace(new ServiceChangeQueries(), db);
  }
}
