/**
 * The PostgreSQL side of posture evaluation's records: edge sessions, failed requests, service-change marks.
 * Same rows and answers as store/sqlite/posture-records.ts; each method is one statement (a delete of edge
 * sessions also announces itself to the other instances, cross-instance-caches.ts).
 */
import type { PgDatabase } from './pg-database.js';
import { CACHE_KINDS, CrossInstanceCaches } from './cross-instance-caches.js';
import type { PolicyType } from '../../model.js';
import type { Async } from '../async.js';
import type { ListQuery, Page } from '../repository.js';
import {
  FAILURE_COLUMNS,
  SESSION_COLUMNS,
  failureOf,
  failureValues,
  sessionListSql,
  sessionOf,
  sessionValues,
  type FailureRow,
  type SessionRow,
} from '../rows/posture-record-rows.js';
import type {
  EdgeSession,
  EdgeSessionRepository,
  FailedServiceRequest,
  SyncFailedRequestRepository,
  SyncServiceChangeRepository,
} from '../posture-repository.js';

/**
 * Deletes the sessions matching `condition`, locking them in id order first: two controllers deleting
 * overlapping sets (a revocation here, a sign-out there) then wait for each other instead of deadlocking,
 * which they could if each locked rows in the order its plan scans them. Answers the ids deleted.
 */
const deleteSessionsWhere = (condition: string) => `
  DELETE FROM edge_sessions WHERE id IN (
    SELECT id FROM edge_sessions WHERE ${condition} ORDER BY id FOR UPDATE)
  RETURNING id, api_session_id`;

/** The cache's kind, as the instances announce it: entries are forgotten by API session id. */
const KIND = CACHE_KINDS.edgeSessions;
/** API sessions whose found edge sessions are kept in memory, at most (the least recently asked go first). */
const CACHED_API_SESSIONS = 10_000;

const findKey = (serviceId: string, type: PolicyType) => `${serviceId}\u0000${type}`;

/**
 * Edge sessions. An agent asks for its session to a service again and again (each new connection does), and
 * the existing session is handed out after a posture check made from memory: what `find` answered outside a
 * transaction is kept, by API session, under the rules of cross-instance-caches.ts, so that request reads
 * nothing. Every delete and re-key announces the API sessions it touched; a create announces nothing, as only
 * sessions found are kept and a second session made by a race is never the one `find` answers (the oldest).
 * An API session's end cascades to its edge sessions unannounced: authentication refuses that API session
 * before its edge sessions are looked up. Callers get copies.
 */
export class PgEdgeSessionRepository implements EdgeSessionRepository {
  private readonly found = new Map<string, Map<string, EdgeSession>>();

  /** Without `caches` (which nothing feeds) every read goes to the database. */
  constructor(
    private readonly db: PgDatabase,
    private readonly caches: CrossInstanceCaches = new CrossInstanceCaches(db, ''),
  ) {
    caches.register(KIND, (apiSessionId) => {
      if (apiSessionId === undefined) this.found.clear();
      else this.found.delete(apiSessionId);
    });
  }

  async create(s: EdgeSession): Promise<void> {
    await this.db.run(
      `INSERT INTO edge_sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      sessionValues(s),
    );
    await this.db.outboxWritten();
  }

  /** Forgets every session found. */
  clearCache(): void {
    this.found.clear();
  }

  /** The API sessions whose edge sessions a write removed or changed: forgotten here and by the others. */
  private async touched(apiSessionIds: readonly string[]): Promise<void> {
    if (apiSessionIds.length > 0) await this.caches.changed(KIND, [...new Set(apiSessionIds)]);
  }

  async get(id: string): Promise<EdgeSession | undefined> {
    const row = await this.db.one<SessionRow>(`SELECT * FROM edge_sessions WHERE id = ?`, [id]);
    return row && sessionOf(row);
  }

  async getByTokenHash(tokenHash: string): Promise<EdgeSession | undefined> {
    const row = await this.db.one<SessionRow>(`SELECT * FROM edge_sessions WHERE token_hash = ?`, [
      tokenHash,
    ]);
    return row && sessionOf(row);
  }

  async setTokenHash(id: string, tokenHash: string): Promise<boolean> {
    const rows = await this.db.rows<{ api_session_id: string }>(
      `UPDATE edge_sessions SET token_hash = ? WHERE id = ? RETURNING api_session_id`,
      [tokenHash, id],
    );
    await this.touched(rows.map((r) => r.api_session_id));
    return rows.length > 0;
  }

  /** The page and the total from one snapshot (one statement); a page without rows is counted on its own. */
  async list(query: ListQuery): Promise<Page<EdgeSession>> {
    const { where, params, order, limit, offset } = sessionListSql(query, 'postgres');
    const count = `SELECT count(*)::int FROM edge_sessions ${where}`;
    const rows = await this.db.rows<SessionRow & { total_count: number }>(
      `SELECT *, (${count}) AS total_count FROM edge_sessions ${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
      [...params, ...params, limit, offset],
    );
    const totalCount =
      rows[0]?.total_count ?? (await this.db.one<{ n: number }>(`SELECT (${count}) AS n`, params))?.n ?? 0;
    return { items: rows.map(sessionOf), totalCount, limit, offset };
  }

  async getMany(ids: readonly string[]): Promise<EdgeSession[]> {
    const rows = await this.db.rows<SessionRow>(`SELECT * FROM edge_sessions WHERE id = ANY(?::text[])`, [
      ids,
    ]);
    return rows.map(sessionOf);
  }

  async all(): Promise<EdgeSession[]> {
    return (await this.db.rows<SessionRow>(`SELECT * FROM edge_sessions`)).map(sessionOf);
  }

  async find(apiSessionId: string, serviceId: string, type: PolicyType): Promise<EdgeSession | undefined> {
    const generation = this.caches.readable(KIND);
    const key = findKey(serviceId, type);
    if (generation !== undefined) {
      const mine = this.found.get(apiSessionId);
      const cached = mine?.get(key);
      if (cached) {
        // Most recently asked last: the first in the map is the one to go.
        this.found.delete(apiSessionId);
        this.found.set(apiSessionId, mine!);
        return { ...cached };
      }
    }
    // The oldest when a race left two (two controllers creating at once), so every caller settles on one.
    const row = await this.db.one<SessionRow>(
      `SELECT * FROM edge_sessions WHERE api_session_id = ? AND service_id = ? AND type = ?
       ORDER BY created_at, id LIMIT 1`,
      [apiSessionId, serviceId, type],
    );
    if (!row) return undefined;
    const session = sessionOf(row);
    if (this.caches.mayKeep(KIND, generation)) this.remember(key, session);
    return { ...session };
  }

  private remember(key: string, s: EdgeSession): void {
    let mine = this.found.get(s.apiSessionId);
    if (!mine) {
      if (this.found.size >= CACHED_API_SESSIONS) this.found.delete(this.found.keys().next().value!);
      this.found.set(s.apiSessionId, (mine = new Map()));
    }
    mine.set(key, s);
  }

  async listByIdentity(identityId: string): Promise<EdgeSession[]> {
    const rows = await this.db.rows<SessionRow>(
      `SELECT * FROM edge_sessions WHERE identity_id = ? ORDER BY created_at, id`,
      [identityId],
    );
    return rows.map(sessionOf);
  }

  /** Of two callers racing to delete one session, exactly one is answered true: the one whose DELETE took the row. */
  async delete(id: string): Promise<boolean> {
    const rows = await this.db.rows<{ api_session_id: string }>(
      `DELETE FROM edge_sessions WHERE id = ? RETURNING api_session_id`,
      [id],
    );
    if (rows.length > 0) await this.db.outboxWritten();
    await this.touched(rows.map((r) => r.api_session_id));
    return rows.length > 0;
  }

  /** Rows deleted by `deleteSessionsWhere`: the outbox is told, the API sessions touched announced. */
  private async deletedWhere(condition: string, params: unknown[]): Promise<{ id: string }[]> {
    const rows = await this.db.rows<{ id: string; api_session_id: string }>(
      deleteSessionsWhere(condition),
      params,
    );
    if (rows.length > 0) await this.db.outboxWritten();
    await this.touched(rows.map((r) => r.api_session_id));
    return rows;
  }

  async deleteMany(ids: readonly string[]): Promise<string[]> {
    const rows = await this.deletedWhere('id = ANY(?::text[])', [ids]);
    // In the order asked, each id once, as SQLite's one-by-one deletes answer.
    const deleted = new Set(rows.map((r) => r.id));
    return ids.filter((id) => deleted.delete(id));
  }

  async deleteByApiSession(apiSessionId: string): Promise<void> {
    await this.deletedWhere('api_session_id = ?', [apiSessionId]);
  }

  async deleteByIdentity(identityId: string): Promise<void> {
    await this.deletedWhere('identity_id = ?', [identityId]);
  }

  async identitiesWithSessions(): Promise<string[]> {
    // Sorted as SQLite's walk of its identity index gives them.
    const rows = await this.db.rows<{ identity_id: string }>(
      `SELECT DISTINCT identity_id FROM edge_sessions ORDER BY identity_id`,
    );
    return rows.map((r) => r.identity_id);
  }

  async deleteOrphans(): Promise<number> {
    const rows = await this.deletedWhere(
      'NOT EXISTS (SELECT 1 FROM api_sessions a WHERE a.id = edge_sessions.api_session_id)',
      [],
    );
    return rows.length;
  }
}

export class PgFailedRequestRepository implements Async<SyncFailedRequestRepository> {
  constructor(private readonly db: PgDatabase) {}

  async add(identityId: string, r: FailedServiceRequest, keep: number): Promise<void> {
    // SQLite inserts, then trims to the newest `keep`: with none to keep, the new record goes too.
    if (keep <= 0) return this.deleteByIdentity(identityId);
    // One statement: the insert and the trim. The trim cannot see the row the insert adds (one snapshot), so
    // the cut-off is found among the rows it sees plus the new one.
    await this.db.run(
      `WITH added AS (
         INSERT INTO failed_service_requests (${FAILURE_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq)
       DELETE FROM failed_service_requests WHERE identity_id = ? AND seq <= (
         SELECT seq FROM (SELECT seq FROM failed_service_requests WHERE identity_id = ?
                          UNION ALL SELECT seq FROM added) newest
         ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      [...failureValues(identityId, r), identityId, identityId, keep],
    );
  }

  async list(identityId: string): Promise<FailedServiceRequest[]> {
    const rows = await this.db.rows<FailureRow>(
      `SELECT * FROM failed_service_requests WHERE identity_id = ? ORDER BY seq`,
      [identityId],
    );
    return rows.map(failureOf);
  }

  async recent(limit: number, offset: number): Promise<(FailedServiceRequest & { identityId: string })[]> {
    // SQLite reads a negative LIMIT as none and a negative OFFSET as 0; PostgreSQL refuses both.
    const rows = await this.db.rows<FailureRow>(
      `SELECT * FROM failed_service_requests ORDER BY seq DESC LIMIT ? OFFSET ?`,
      [limit < 0 ? null : limit, Math.max(0, offset)],
    );
    return rows.map((r) => ({ ...failureOf(r), identityId: r.identity_id }));
  }

  async count(): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `SELECT count(*)::integer AS n FROM failed_service_requests`,
    );
    return row!.n;
  }

  async deleteByIdentity(identityId: string): Promise<void> {
    await this.db.run(`DELETE FROM failed_service_requests WHERE identity_id = ?`, [identityId]);
  }
}

export class PgServiceChangeRepository implements Async<SyncServiceChangeRepository> {
  constructor(private readonly db: PgDatabase) {}

  async lastChangeAt(identityId: string): Promise<Date | undefined> {
    const row = await this.db.one<{ last_change_at: string }>(
      `SELECT last_change_at FROM service_changes WHERE identity_id = ?`,
      [identityId],
    );
    return row && new Date(row.last_change_at);
  }

  /** An upsert: the outbox's trigger writes one `access.changed` row either way, as SQLite's REPLACE does. */
  async markChanged(identityId: string, at: Date): Promise<void> {
    await this.db.run(
      `INSERT INTO service_changes (identity_id, last_change_at) VALUES (?, ?)
       ON CONFLICT (identity_id) DO UPDATE SET last_change_at = excluded.last_change_at`,
      [identityId, at.toISOString()],
    );
    await this.db.outboxWritten();
  }

  async deleteByIdentity(identityId: string): Promise<void> {
    await this.db.run(`DELETE FROM service_changes WHERE identity_id = ?`, [identityId]);
  }
}
