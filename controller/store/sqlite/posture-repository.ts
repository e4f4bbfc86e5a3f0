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
import { SQLITE } from '../sql/dialect.js';
import { sqliteFace } from '../sql/faces.js';
import {
  API_SESSION_COLUMNS as COLUMNS,
  apiSessionOf,
  emptyPostureData,
  processOf as processFromRow,
  kindOfSlot,
  putFact,
  text,
  type ApiSessionRow,
  type FactRow,
  type ProcessRow as ProcessRowOf,
} from '../rows/posture-rows.js';
import { heldWithin, moveTime, slotIn, slotKey } from '../reported-times.js';

/** SQLite answers is_running as 1/0. */
type ProcessRow = ProcessRowOf<number>;

const processOf = (r: ProcessRow): ProcessData => processFromRow(r, (flag) => flag === 1);

/**
 * Whether SQLite gives these strings back unchanged (a lone surrogate comes back as U+FFFD): only then may a
 * write update the cached data instead of dropping it.
 */
const roundTrips = (...texts: string[]) => texts.every((t) => !/\p{Cs}/u.test(t));

/** Identities whose posture data is kept in memory, at most (the least recently read go first). */
const CACHED_IDENTITIES = 5_000;

/**
 * How far the stored `lastUpdatedAt` of a fact reported again unchanged may fall behind the one in memory:
 * writing it on every report would cost a B-tree write per fact per report, for a time only people read.
 */
const REPEATED_FACT_WRITE_MS = 60_000;

/**
 * Identity facts as one JSON value per kind; processes and API sessions in their own tables.
 *
 * Each posture report and session request loads the identity's data, so what was loaded is kept in memory
 * per identity. A fact or a known binary's report updates the cached entry with what `read` would build from
 * the row just written; a report repeating stored facts moves their cached time (once a second at most) and
 * writes it at most once a minute per fact (after a restart or an eviction the time read back may be that much older); every other
 * write drops the identity's entry before it runs (the next load reads the database again); the store clears
 * the cache when a transaction rolls back. Callers get the cached object itself (read-only by its type):
 * every change builds a new one, so what a caller holds stays as it was when loaded.
 */
class SqlitePostureDataRepository implements SyncPostureDataRepository {
  private readonly stmts;
  private readonly cache = new Map<string, PostureSnapshot>();
  /** the identity each API session of a cached identity belongs to */
  private readonly owners = new Map<string, string>();
  /**
   * Per cached identity, the facts whose stored `lastUpdatedAt` is older than the one in memory (a repeated
   * report moved only memory's), with the stored time in ms.
   */
  private readonly storedAt = new Map<string, Map<string, number>>();

  constructor(private readonly db: Db) {
    this.stmts = {
      facts: db.prepare(
        `SELECT kind, posture_check_id, value, updated_at FROM posture_facts WHERE identity_id = ?`,
      ),
      // Upserts, not INSERT OR REPLACE: a report updates its row in place instead of deleting it and
      // inserting a new one (two B-tree writes more per fact, and per report five facts).
      setFact: db.prepare(
        `INSERT INTO posture_facts (identity_id, kind, posture_check_id, value, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (identity_id, kind) DO UPDATE SET posture_check_id = excluded.posture_check_id,
           value = excluded.value, updated_at = excluded.updated_at`,
      ),
      processes: db.prepare(`SELECT * FROM posture_processes WHERE identity_id = ? ORDER BY path`),
      setProcess: db.prepare(
        `INSERT INTO posture_processes (identity_id, path, posture_check_id, is_running, hash, signer_fingerprints, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (identity_id, path) DO UPDATE SET posture_check_id = excluded.posture_check_id,
           is_running = excluded.is_running, hash = excluded.hash,
           signer_fingerprints = excluded.signer_fingerprints, updated_at = excluded.updated_at`,
      ),
      apiSessions: db.prepare(
        `SELECT * FROM posture_api_sessions WHERE identity_id = ? ORDER BY api_session_id`,
      ),
      // The same three reads for a JSON array of identities (loadMany), in the order `read` gives each.
      manyFacts: db.prepare(
        `SELECT identity_id, kind, posture_check_id, value, updated_at FROM posture_facts
         WHERE identity_id IN (SELECT value FROM json_each(?))`,
      ),
      manyFactsOfKinds: db.prepare(
        `SELECT identity_id, kind, posture_check_id, value, updated_at FROM posture_facts
         WHERE identity_id IN (SELECT value FROM json_each(?)) AND kind IN (SELECT value FROM json_each(?))`,
      ),
      manyProcesses: db.prepare(
        `SELECT * FROM posture_processes WHERE identity_id IN (SELECT value FROM json_each(?))
         ORDER BY identity_id, path`,
      ),
      manyApiSessions: db.prepare(
        `SELECT * FROM posture_api_sessions WHERE identity_id IN (SELECT value FROM json_each(?))
         ORDER BY identity_id, api_session_id`,
      ),
      ensureApiSession: db.prepare(
        // Only for a live API session (the foreign key would refuse it): an event that arrives after its API
        // session ended writes nothing.
        `INSERT OR IGNORE INTO posture_api_sessions (api_session_id, identity_id)
           SELECT ?, ? WHERE EXISTS (SELECT 1 FROM api_sessions WHERE id = ?)`,
      ),
      clearMfa: db.prepare(`UPDATE posture_api_sessions SET mfa_passed_at = NULL WHERE identity_id = ?`),
      identityOf: db.prepare(`SELECT identity_id FROM posture_api_sessions WHERE api_session_id = ?`),
      digest: db.prepare(`SELECT access_digest FROM posture_api_sessions WHERE api_session_id = ?`),
      setDigest: db.prepare(`UPDATE posture_api_sessions SET access_digest = ? WHERE api_session_id = ?`),
      identities: db.prepare(`SELECT DISTINCT identity_id FROM posture_api_sessions`),
      deleteOrphans: db.prepare(
        `DELETE FROM posture_api_sessions WHERE api_session_id NOT IN (SELECT id FROM api_sessions)`,
      ),
      deleteApiSession: db.prepare(`DELETE FROM posture_api_sessions WHERE api_session_id = ?`),
      deleteFacts: db.prepare(`DELETE FROM posture_facts WHERE identity_id = ?`),
      deleteProcesses: db.prepare(`DELETE FROM posture_processes WHERE identity_id = ?`),
      deleteProcess: db.prepare(`DELETE FROM posture_processes WHERE identity_id = ? AND path = ?`),
      factTime: db.prepare(`UPDATE posture_facts SET updated_at = ? WHERE identity_id = ? AND kind = ?`),
      processTime: db.prepare(
        `UPDATE posture_processes SET updated_at = ? WHERE identity_id = ? AND path = ?`,
      ),
      deleteApiSessions: db.prepare(`DELETE FROM posture_api_sessions WHERE identity_id = ?`),
    };
  }

  load(identityId: string): PostureSnapshot {
    let data = this.cache.get(identityId);
    if (data) {
      // Most recently read last, so eviction takes the identities read the longest ago.
      this.cache.delete(identityId);
      this.cache.set(identityId, data);
    } else {
      data = this.read(identityId);
      if (this.cache.size >= CACHED_IDENTITIES) this.forget(this.cache.keys().next().value!);
      this.cache.set(identityId, data);
      for (const apiSessionId of Object.keys(data.apiSessions)) this.owners.set(apiSessionId, identityId);
    }
    return data;
  }

  /** Cached identities as held (memory may be ahead of the rows, see refreshReported), the others read. */
  loadMany(identityIds: readonly string[], parts?: SnapshotParts): Map<string, PostureSnapshot> {
    const found = new Map<string, PostureSnapshot>();
    const missing = new Map<string, IdentityPostureData>();
    for (const id of identityIds) {
      const cached = this.cache.get(id);
      if (cached) found.set(id, cached);
      else if (!missing.has(id)) missing.set(id, emptyPostureData(id));
    }
    if (missing.size === 0) return found;
    const ids = JSON.stringify([...missing.keys()]);
    type Keyed<R> = R & { identity_id: string };
    const facts = parts
      ? parts.kinds.length > 0
        ? this.stmts.manyFactsOfKinds.all(ids, JSON.stringify(parts.kinds))
        : []
      : this.stmts.manyFacts.all(ids);
    for (const row of facts as Keyed<FactRow>[]) putFact(missing.get(row.identity_id)!, row);
    if (!parts || parts.processes)
      for (const row of this.stmts.manyProcesses.all(ids) as Keyed<ProcessRow>[])
        missing.get(row.identity_id)!.processes.push(processOf(row));
    if (!parts || parts.apiSessions)
      for (const row of this.stmts.manyApiSessions.all(ids) as Keyed<ApiSessionRow>[])
        missing.get(row.identity_id)!.apiSessions[row.api_session_id] = apiSessionOf(row);
    for (const [id, data] of missing) found.set(id, data);
    return found;
  }

  /** Forgets every cached identity (after a rolled-back transaction). */
  clearCache(): void {
    this.cache.clear();
    this.owners.clear();
    this.storedAt.clear();
  }

  private forget(identityId: string): void {
    const data = this.cache.get(identityId);
    if (!data) return;
    this.cache.delete(identityId);
    this.storedAt.delete(identityId);
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

  private read(identityId: string): IdentityPostureData {
    const data = emptyPostureData(identityId);
    for (const row of this.stmts.facts.all(identityId) as FactRow[]) putFact(data, row);
    data.processes = (this.stmts.processes.all(identityId) as ProcessRow[]).map(processOf);
    for (const r of this.stmts.apiSessions.all(identityId) as ApiSessionRow[]) {
      data.apiSessions[r.api_session_id] = apiSessionOf(r);
    }
    return data;
  }

  setOs(identityId: string, os: OsData): void {
    this.setFact(identityId, 'os', os, { type: os.type, version: os.version, build: os.build });
  }

  setMac(identityId: string, mac: MacData): void {
    this.setFact(identityId, 'mac', mac, { addresses: mac.addresses });
  }

  setDomain(identityId: string, domain: DomainData): void {
    this.setFact(identityId, 'domain', domain, { domain: domain.domain });
  }

  setReportedFact(identityId: string, typeId: string, fact: ReportedFactData): void {
    this.setFact(identityId, typeId, fact, fact.value);
  }

  setProcess(identityId: string, p: ProcessData): void {
    const row: ProcessRow = {
      path: p.path,
      posture_check_id: p.postureCheckId,
      is_running: p.isRunning ? 1 : 0,
      hash: p.hash,
      signer_fingerprints: JSON.stringify(p.signerFingerprints),
      updated_at: p.lastUpdatedAt.toISOString(),
    };
    const cached = this.cache.get(identityId);
    // A binary reported again replaces its entry in place (the order by path stays); anything else is read
    // again from the database.
    const at = cached?.processes.findIndex((c) => c.path === p.path) ?? -1;
    if (at < 0 || !roundTrips(p.postureCheckId, p.hash)) this.forget(identityId);
    this.stmts.setProcess.run(
      identityId,
      row.path,
      row.posture_check_id,
      row.is_running,
      row.hash,
      row.signer_fingerprints,
      row.updated_at,
    );
    this.storedAt.get(identityId)?.delete(slotKey({ kind: 'process', path: p.path }));
    const still = this.cache.get(identityId);
    // The cached path is the one the database gave back, equal to this one.
    if (still && at >= 0) {
      const processes = [...still.processes];
      processes[at] = processOf({ ...row, path: processes[at]!.path });
      this.cache.set(identityId, { ...still, processes });
    }
  }

  refreshReported(identityId: string, slots: readonly FactSlotRef[], at: Date): void {
    const cached = this.cache.get(identityId);
    if (cached && slots.every((slot) => heldWithin(cached, slot, at))) return;
    // One new entry for the whole report (what callers hold stays as it was).
    const next = cached && ({ ...cached, processes: [...cached.processes] } as IdentityPostureData);
    for (const slot of slots) {
      const held = next && slotIn(next, slot);
      const key = slotKey(slot);
      const stored = this.storedAt.get(identityId)?.get(key) ?? held?.lastUpdatedAt.getTime();
      if (!held || stored === undefined || at.getTime() - stored >= REPEATED_FACT_WRITE_MS) {
        if (slot.kind === 'process') this.stmts.processTime.run(at.toISOString(), identityId, slot.path);
        else this.stmts.factTime.run(at.toISOString(), identityId, kindOfSlot(slot));
        this.storedAt.get(identityId)?.delete(key);
      } else {
        let behind = this.storedAt.get(identityId);
        if (!behind) this.storedAt.set(identityId, (behind = new Map()));
        behind.set(key, stored);
      }
      if (next && held) moveTime(next, slot, new Date(at.getTime()));
    }
    if (next) this.cache.set(identityId, next);
  }

  deleteProcess(identityId: string, path: string): void {
    this.forget(identityId);
    this.stmts.deleteProcess.run(identityId, path);
  }

  updateApiSession(apiSessionId: string, identityId: string, patch: ApiSessionPatch): void {
    const entries = Object.entries(patch) as [keyof ApiSessionPatch, unknown][];
    // Nothing to write when the row is known to exist and no field changes (every posture report asks).
    if (entries.length === 0 && this.owners.get(apiSessionId) === identityId) return;
    // The row may exist under another identity (INSERT OR IGNORE keeps it): forget that one too.
    this.forgetApiSession(apiSessionId);
    this.forget(identityId);
    this.stmts.ensureApiSession.run(apiSessionId, identityId, apiSessionId);
    if (entries.length === 0) return;
    const sets = entries.map(([key]) => `${COLUMNS[key]} = ?`).join(', ');
    const values = entries.map(([key, v]) =>
      key === 'sdkInfo' ? (v === null ? null : JSON.stringify(v)) : text(v as Date | null),
    );
    this.db
      .prepare(`UPDATE posture_api_sessions SET ${sets} WHERE api_session_id = ?`)
      .run(...values, apiSessionId);
  }

  clearMfa(identityId: string): void {
    this.forget(identityId);
    this.stmts.clearMfa.run(identityId);
  }

  identityOfApiSession(apiSessionId: string): string | undefined {
    return (this.stmts.identityOf.get(apiSessionId) as { identity_id: string } | undefined)?.identity_id;
  }

  accessDigest(apiSessionId: string): string | null {
    return (
      (this.stmts.digest.get(apiSessionId) as { access_digest: string | null } | undefined)?.access_digest ??
      null
    );
  }

  setAccessDigest(apiSessionId: string, digest: string): void {
    this.stmts.setDigest.run(digest, apiSessionId);
  }

  identitiesWithApiSessions(): string[] {
    return (this.stmts.identities.all() as { identity_id: string }[]).map((r) => r.identity_id);
  }

  deleteApiSession(apiSessionId: string): void {
    this.forgetApiSession(apiSessionId);
    this.stmts.deleteApiSession.run(apiSessionId);
  }

  deleteIdentity(identityId: string): void {
    this.forget(identityId);
    this.db.transaction(() => {
      this.stmts.deleteFacts.run(identityId);
      this.stmts.deleteProcesses.run(identityId);
      this.stmts.deleteApiSessions.run(identityId);
    })();
  }

  deleteOrphans(): number {
    this.clearCache();
    return this.stmts.deleteOrphans.run().changes;
  }

  private setFact(
    identityId: string,
    kind: string,
    slot: { postureCheckId: string; lastUpdatedAt: Date },
    value: object,
  ): void {
    const row: FactRow = {
      kind,
      posture_check_id: slot.postureCheckId,
      // JSON.stringify escapes lone surrogates, so the value always comes back as written.
      value: JSON.stringify(value),
      updated_at: slot.lastUpdatedAt.toISOString(),
    };
    if (!roundTrips(row.posture_check_id)) this.forget(identityId);
    this.stmts.setFact.run(identityId, kind, row.posture_check_id, row.value, row.updated_at);
    this.storedAt.get(identityId)?.delete(kind);
    // Written through: the evaluation that follows a report loads from memory what `read` would build.
    const cached = this.cache.get(identityId);
    if (cached) {
      // A new entry whose one slot putFact replaces (it never changes a slot's object in place).
      const next = { ...cached } as IdentityPostureData;
      putFact(next, row);
      this.cache.set(identityId, next);
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
