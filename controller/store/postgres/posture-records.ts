/**
 * The PostgreSQL side of posture evaluation's records: edge sessions, failed requests, service-change marks.
 * Same rows and answers as store/sqlite/posture-records.ts; each method is one statement.
 */
import type { PgDatabase } from './pg-database.js';
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
  RETURNING id`;

export class PgEdgeSessionRepository implements EdgeSessionRepository {
  constructor(private readonly db: PgDatabase) {}

  async create(s: EdgeSession): Promise<void> {
    await this.db.run(
      `INSERT INTO edge_sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      sessionValues(s),
    );
    await this.db.outboxWritten();
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
    return (await this.db.run(`UPDATE edge_sessions SET token_hash = ? WHERE id = ?`, [tokenHash, id])) > 0;
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
    // The oldest when a race left two (two controllers creating at once), so every caller settles on one.
    const row = await this.db.one<SessionRow>(
      `SELECT * FROM edge_sessions WHERE api_session_id = ? AND service_id = ? AND type = ?
       ORDER BY created_at, id LIMIT 1`,
      [apiSessionId, serviceId, type],
    );
    return row && sessionOf(row);
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
    const deleted = (await this.db.run(`DELETE FROM edge_sessions WHERE id = ?`, [id])) > 0;
    if (deleted) await this.db.outboxWritten();
    return deleted;
  }

  async deleteMany(ids: readonly string[]): Promise<string[]> {
    const rows = await this.db.rows<{ id: string }>(deleteSessionsWhere('id = ANY(?::text[])'), [ids]);
    if (rows.length > 0) await this.db.outboxWritten();
    // In the order asked, each id once, as SQLite's one-by-one deletes answer.
    const deleted = new Set(rows.map((r) => r.id));
    return ids.filter((id) => deleted.delete(id));
  }

  async deleteByApiSession(apiSessionId: string): Promise<void> {
    if ((await this.db.run(deleteSessionsWhere('api_session_id = ?'), [apiSessionId])) > 0)
      await this.db.outboxWritten();
  }

  async deleteByIdentity(identityId: string): Promise<void> {
    if ((await this.db.run(deleteSessionsWhere('identity_id = ?'), [identityId])) > 0)
      await this.db.outboxWritten();
  }

  async identitiesWithSessions(): Promise<string[]> {
    // Sorted as SQLite's walk of its identity index gives them.
    const rows = await this.db.rows<{ identity_id: string }>(
      `SELECT DISTINCT identity_id FROM edge_sessions ORDER BY identity_id`,
    );
    return rows.map((r) => r.identity_id);
  }

  async deleteOrphans(): Promise<number> {
    const deleted = await this.db.run(
      deleteSessionsWhere(
        'NOT EXISTS (SELECT 1 FROM api_sessions a WHERE a.id = edge_sessions.api_session_id)',
      ),
    );
    if (deleted > 0) await this.db.outboxWritten();
    return deleted;
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
