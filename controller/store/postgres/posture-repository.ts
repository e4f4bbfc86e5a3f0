/**
 * Posture data on PostgreSQL: the same tables and row shapes as store/sqlite/posture-repository.ts (identity
 * facts as one JSON text per kind, processes and API sessions in their own tables), answering what SQLite
 * answers.
 *
 * `load`, which every posture report and session request runs, is one query (the three tables' rows come back
 * as three JSON arrays of one row), and what it read is kept per identity as SQLite keeps it: callers get the
 * cached snapshot itself, read-only, and every change builds a new one. Several controllers write these
 * rows: every write drops the identity's entry and announces it to the others (cross-instance-caches.ts),
 * who drop theirs.
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
import { heldWithin, moveTime, slotIn, slotKey } from '../reported-times.js';
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
  SnapshotParts,
} from '../../posture-model.js';
import {
  EdgeSessionQueries,
  FailedRequestQueries,
  ServiceChangeQueries,
} from '../repositories/posture-record-queries.js';
import { POSTGRES } from '../sql/dialect.js';
import { postgresFace, type AsyncFace } from '../sql/faces.js';
import { FoundEdgeSessions } from './found-edge-sessions.js';
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

/** Rows as `row_to_json` writes them: text stays text (times are ISO text already), booleans are JSON's. */
type ProcessRow = ProcessRowOf<boolean>;

interface LoadRow {
  facts: FactRow[] | null;
  processes: ProcessRow[] | null;
  api_sessions: ApiSessionRow[] | null;
}

/**
 * An identity's facts, processes (by path) and API sessions (by id), each table's rows as one JSON array;
 * json_agg answers NULL for no rows.
 */
const LOAD = `
  SELECT
    (SELECT json_agg(f) FROM (SELECT kind, posture_check_id, value, updated_at FROM posture_facts
                              WHERE identity_id = ?) f) AS facts,
    (SELECT json_agg(p ORDER BY p.path) FROM (SELECT path, posture_check_id, is_running, hash,
       signer_fingerprints, updated_at FROM posture_processes WHERE identity_id = ?) p) AS processes,
    (SELECT json_agg(s ORDER BY s.api_session_id) FROM (SELECT api_session_id, mfa_passed_at, woken_at,
       unlocked_at, sdk_info FROM posture_api_sessions WHERE identity_id = ?) s) AS api_sessions`;

const processOf = (r: ProcessRow): ProcessData => processFromRow(r, (flag) => flag);

const KIND = CACHE_KINDS.postureData;
/** Identities whose posture data is kept in memory, at most (the least recently read go first), as on SQLite. */
const CACHED_IDENTITIES = 5_000;
/** How often the times of repeated reports are written, all identities' in one statement. */
export const REPORTED_TIMES_FLUSH_MS = 1_000;

/** A time to write: the identity, the fact kind ('' for a process) or the binary's path, the time. */
interface QueuedTime {
  identityId: string;
  kind: string;
  path: string;
  at: string;
}

/**
 * Moves the queued times, facts and processes in one statement; `greatest` in effect: a row whose time is
 * already later (a newer report, written by any instance) keeps it.
 */
const WRITE_TIMES = `
  WITH times AS (SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) AS t(identity_id, kind, path, at)),
       facts AS (UPDATE posture_facts f SET updated_at = t.at FROM times t
                 WHERE t.kind <> '' AND f.identity_id = t.identity_id AND f.kind = t.kind AND f.updated_at < t.at COLLATE "C")
  UPDATE posture_processes p SET updated_at = t.at FROM times t
  WHERE t.kind = '' AND p.identity_id = t.identity_id AND p.path = t.path AND p.updated_at < t.at COLLATE "C"`;

class PgPostureDataRepository implements PostureDataRepository {
  private readonly cache = new Map<string, IdentityPostureData>();
  /** times to write, by identity and slot (a later report of the same slot replaces an earlier) */
  private readonly queuedTimes = new Map<string, QueuedTime>();
  private flushTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly scope = new AsyncResource('PostureReportedTimes');

  constructor(
    private readonly db: PgDatabase,
    private readonly caches: CrossInstanceCaches,
  ) {
    caches.register(KIND, (id) => {
      if (id === undefined) this.cache.clear();
      else this.cache.delete(id);
    });
  }

  async load(identityId: string): Promise<IdentityPostureData> {
    const generation = this.caches.readable(KIND);
    if (generation !== undefined) {
      const cached = this.cache.get(identityId);
      if (cached) {
        this.cache.delete(identityId);
        this.cache.set(identityId, cached);
        return cached;
      }
    }
    const data = await this.read(identityId);
    if (this.caches.mayKeep(KIND, generation)) {
      if (this.cache.size >= CACHED_IDENTITIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(identityId, data);
    }
    return data;
  }

  /** Writes the queued times of repeated reports now (the timer's work; a closing store's last). */
  flushReportedTimes(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const queued = [...this.queuedTimes.values()];
    this.queuedTimes.clear();
    if (queued.length === 0) return this.flushing;
    const column = <K extends keyof QueuedTime>(k: K) => queued.map((q) => q[k]);
    this.flushing = this.flushing
      .then(() =>
        this.db.run(WRITE_TIMES, [column('identityId'), column('kind'), column('path'), column('at')]),
      )
      // The pool is gone (closing) or the database away: these times are lost, as a crash would lose them;
      // the next repeated report queues its own.
      .then(
        () => undefined,
        () => undefined,
      );
    return this.flushing;
  }

  /** Everything about one identity, from the database. */
  private async read(identityId: string): Promise<IdentityPostureData> {
    const row = (await this.db.one<LoadRow>(LOAD, [identityId, identityId, identityId]))!;
    const data: IdentityPostureData = {
      ...emptyPostureData(identityId),
      processes: (row.processes ?? []).map(processOf),
    };
    for (const fact of row.facts ?? []) putFact(data, fact);
    for (const r of row.api_sessions ?? []) data.apiSessions[r.api_session_id] = apiSessionOf(r);
    return data;
  }

  /** Three queries for all of them, each table's rows in the order `load` gives one identity's. */
  async loadMany(
    identityIds: readonly string[],
    parts?: SnapshotParts,
  ): Promise<Map<string, IdentityPostureData>> {
    const found = new Map<string, IdentityPostureData>();
    for (const id of identityIds) if (!found.has(id)) found.set(id, emptyPostureData(id));
    if (found.size === 0) return found;
    const ids = [...found.keys()];
    type Keyed<R> = R & { identity_id: string };
    const none = Promise.resolve([]);
    const [facts, processes, sessions] = await Promise.all([
      !parts
        ? this.db.rows<Keyed<FactRow>>(
            `SELECT identity_id, kind, posture_check_id, value, updated_at FROM posture_facts
             WHERE identity_id = ANY(?::text[])`,
            [ids],
          )
        : parts.kinds.length > 0
          ? this.db.rows<Keyed<FactRow>>(
              `SELECT identity_id, kind, posture_check_id, value, updated_at FROM posture_facts
               WHERE identity_id = ANY(?::text[]) AND kind = ANY(?::text[])`,
              [ids, [...parts.kinds]],
            )
          : none,
      !parts || parts.processes
        ? this.db.rows<Keyed<ProcessRow>>(
            `SELECT identity_id, path, posture_check_id, is_running, hash, signer_fingerprints, updated_at
             FROM posture_processes WHERE identity_id = ANY(?::text[]) ORDER BY identity_id, path`,
            [ids],
          )
        : none,
      !parts || parts.apiSessions
        ? this.db.rows<Keyed<ApiSessionRow>>(
            `SELECT identity_id, api_session_id, mfa_passed_at, woken_at, unlocked_at, sdk_info
             FROM posture_api_sessions WHERE identity_id = ANY(?::text[]) ORDER BY identity_id, api_session_id`,
            [ids],
          )
        : none,
    ]);
    for (const row of facts) putFact(found.get(row.identity_id)!, row);
    for (const row of processes) found.get(row.identity_id)!.processes.push(processOf(row));
    for (const row of sessions)
      found.get(row.identity_id)!.apiSessions[row.api_session_id] = apiSessionOf(row);
    return found;
  }

  setOs(identityId: string, os: OsData): Promise<void> {
    return this.setFact(identityId, 'os', os, { type: os.type, version: os.version, build: os.build });
  }

  setMac(identityId: string, mac: MacData): Promise<void> {
    return this.setFact(identityId, 'mac', mac, { addresses: mac.addresses });
  }

  setDomain(identityId: string, domain: DomainData): Promise<void> {
    return this.setFact(identityId, 'domain', domain, { domain: domain.domain });
  }

  setReportedFact(identityId: string, typeId: string, fact: ReportedFactData): Promise<void> {
    return this.setFact(identityId, typeId, fact, fact.value);
  }

  async setProcess(identityId: string, p: ProcessData): Promise<void> {
    await this.written(
      identityId,
      this.db.run(
        `INSERT INTO posture_processes
         (identity_id, path, posture_check_id, is_running, hash, signer_fingerprints, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (identity_id, path) DO UPDATE SET posture_check_id = excluded.posture_check_id,
         is_running = excluded.is_running, hash = excluded.hash,
         signer_fingerprints = excluded.signer_fingerprints, updated_at = excluded.updated_at`,
        [
          identityId,
          p.path,
          p.postureCheckId,
          p.isRunning,
          p.hash,
          JSON.stringify(p.signerFingerprints),
          p.lastUpdatedAt.toISOString(),
        ],
      ),
    );
  }

  /** Written behind (see the top): the cached snapshot moves now, the rows within REPORTED_TIMES_FLUSH_MS. */
  async refreshReported(identityId: string, slots: readonly FactSlotRef[], at: Date): Promise<void> {
    const cached = this.cache.get(identityId);
    if (cached && slots.every((slot) => heldWithin(cached, slot, at))) return;
    // One new entry for the whole report (what callers hold stays as it was).
    const next = cached && ({ ...cached, processes: [...cached.processes] } as IdentityPostureData);
    const time = at.toISOString();
    for (const slot of slots) {
      if (next && slotIn(next, slot)) moveTime(next, slot, new Date(at.getTime()));
      const kind = slot.kind === 'process' ? '' : kindOfSlot(slot);
      const path = slot.kind === 'process' ? slot.path : '';
      this.queuedTimes.set(`${identityId}\n${slotKey(slot)}`, { identityId, kind, path, at: time });
    }
    if (next) this.cache.set(identityId, next);
    // Armed in the store's own async context, not the request's: the write is no request's.
    this.flushTimer ??= this.scope.runInAsyncScope(() =>
      setTimeout(() => void this.flushReportedTimes(), REPORTED_TIMES_FLUSH_MS).unref(),
    );
  }

  async deleteProcess(identityId: string, path: string): Promise<void> {
    await this.written(
      identityId,
      this.db.run(`DELETE FROM posture_processes WHERE identity_id = ? AND path = ?`, [identityId, path]),
    );
  }

  /**
   * Once `write` is done: if it changed a row, the identity's cached snapshot is dropped here and announced to
   * the others (a session request's `updateApiSession` for a row that exists changes none).
   */
  private async written(identityId: string, write: Promise<number>): Promise<void> {
    if ((await write) > 0) await this.caches.changed(KIND, [identityId]);
  }

  /**
   * One upsert. A row that exists keeps its identity (SQLite's INSERT OR IGNORE then UPDATE); only the given
   * fields are written, and with none given an existing row is left as it is.
   */
  async updateApiSession(apiSessionId: string, identityId: string, patch: ApiSessionPatch): Promise<void> {
    const entries = Object.entries(patch) as [keyof ApiSessionPatch, unknown][];
    const columns = entries.map(([key]) => COLUMNS[key]);
    const values = entries.map(([key, v]) =>
      key === 'sdkInfo' ? (v === null || v === undefined ? null : JSON.stringify(v)) : text(v as Date | null),
    );
    const onConflict =
      columns.length === 0
        ? 'DO NOTHING'
        : `DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}`;
    await this.written(
      identityId,
      this.db.run(
        // Only for a live API session (the foreign key would refuse it): an event that arrives after its API
        // session ended writes nothing, as on SQLite.
        `INSERT INTO posture_api_sessions (api_session_id, identity_id${columns.map((c) => `, ${c}`).join('')})
       SELECT ?, ?${columns.map(() => ', ?').join('')} WHERE EXISTS (SELECT 1 FROM api_sessions WHERE id = ?)
       ON CONFLICT (api_session_id) ${onConflict}`,
        [apiSessionId, identityId, ...values, apiSessionId],
      ),
    );
  }

  async clearMfa(identityId: string): Promise<void> {
    await this.written(
      identityId,
      this.db.run(`UPDATE posture_api_sessions SET mfa_passed_at = NULL WHERE identity_id = ?`, [identityId]),
    );
  }

  async identityOfApiSession(apiSessionId: string): Promise<string | undefined> {
    const row = await this.db.one<{ identity_id: string }>(
      `SELECT identity_id FROM posture_api_sessions WHERE api_session_id = ?`,
      [apiSessionId],
    );
    return row?.identity_id;
  }

  async accessDigest(apiSessionId: string): Promise<string | null> {
    const row = await this.db.one<{ access_digest: string | null }>(
      `SELECT access_digest FROM posture_api_sessions WHERE api_session_id = ?`,
      [apiSessionId],
    );
    return row?.access_digest ?? null;
  }

  async setAccessDigest(apiSessionId: string, digest: string): Promise<void> {
    await this.db.run(`UPDATE posture_api_sessions SET access_digest = ? WHERE api_session_id = ?`, [
      digest,
      apiSessionId,
    ]);
  }

  async identitiesWithApiSessions(): Promise<string[]> {
    // Sorted as SQLite's walk of its identity index gives them.
    const rows = await this.db.rows<{ identity_id: string }>(
      `SELECT DISTINCT identity_id FROM posture_api_sessions ORDER BY identity_id`,
    );
    return rows.map((r) => r.identity_id);
  }

  async deleteApiSession(apiSessionId: string): Promise<void> {
    const gone = await this.db.rows<{ identity_id: string }>(
      `DELETE FROM posture_api_sessions WHERE api_session_id = ? RETURNING identity_id`,
      [apiSessionId],
    );
    if (gone.length > 0) await this.caches.changed(KIND, [gone[0]!.identity_id]);
  }

  /** The three tables in one statement: atomic without a transaction of its own, and one round trip. */
  async deleteIdentity(identityId: string): Promise<void> {
    await this.db.run(
      `WITH facts AS (DELETE FROM posture_facts WHERE identity_id = ?),
            processes AS (DELETE FROM posture_processes WHERE identity_id = ?)
       DELETE FROM posture_api_sessions WHERE identity_id = ?`,
      [identityId, identityId, identityId],
    );
    // Announced whatever the count says: it counts the API-session rows only, not the facts deleted with them.
    await this.caches.changed(KIND, [identityId]);
  }

  async deleteOrphans(): Promise<number> {
    const gone = await this.db.rows<{ identity_id: string }>(
      `DELETE FROM posture_api_sessions p
       WHERE NOT EXISTS (SELECT 1 FROM api_sessions a WHERE a.id = p.api_session_id) RETURNING identity_id`,
    );
    if (gone.length > 0) await this.caches.changed(KIND, [...new Set(gone.map((r) => r.identity_id))]);
    return gone.length;
  }

  /** Upserts in place, as SQLite's: a report rewrites its row instead of deleting and inserting one. */
  private async setFact(
    identityId: string,
    kind: string,
    slot: { postureCheckId: string; lastUpdatedAt: Date },
    value: object,
  ): Promise<void> {
    await this.written(
      identityId,
      this.db.run(
        `INSERT INTO posture_facts (identity_id, kind, posture_check_id, value, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (identity_id, kind) DO UPDATE SET posture_check_id = excluded.posture_check_id,
         value = excluded.value, updated_at = excluded.updated_at`,
        // JSON.stringify escapes lone surrogates and NUL, so the value always comes back as written.
        [identityId, kind, slot.postureCheckId, JSON.stringify(value), slot.lastUpdatedAt.toISOString()],
      ),
    );
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
