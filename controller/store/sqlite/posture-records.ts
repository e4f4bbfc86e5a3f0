/** The SQLite side of posture evaluation's records: edge sessions, failed requests, service-change marks. */
import type { Db } from '../database.js';
import type { PolicyType } from '../../model.js';
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
  SyncEdgeSessionRepository,
  SyncFailedRequestRepository,
  FailedServiceRequest,
  SyncServiceChangeRepository,
} from '../posture-repository.js';

/** Sessions `find` keeps in memory, at most (then it starts afresh). */
const FOUND_SESSIONS = 10_000;

const findKey = (apiSessionId: string, serviceId: string, type: PolicyType) =>
  `${apiSessionId}\u0000${serviceId}\u0000${type}`;

/**
 * Edge sessions. An agent asks for its session to a service again and again (each new connection does), so
 * what `find` answered is kept in memory: a create adds to it, every delete (rare: a revocation, a sign-out)
 * forgets all of it, and the store clears it when a transaction rolls back. Callers get copies.
 */
export class SqliteEdgeSessionRepository implements SyncEdgeSessionRepository {
  private readonly stmts;
  private readonly found = new Map<string, EdgeSession>();

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO edge_sessions (${SESSION_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      get: db.prepare(`SELECT * FROM edge_sessions WHERE id = ?`),
      getByTokenHash: db.prepare(`SELECT * FROM edge_sessions WHERE token_hash = ?`),
      setTokenHash: db.prepare(`UPDATE edge_sessions SET token_hash = ? WHERE id = ?`),
      getMany: db.prepare(`SELECT * FROM edge_sessions WHERE id IN (SELECT value FROM json_each(?))`),
      all: db.prepare(`SELECT * FROM edge_sessions`),
      find: db.prepare(
        `SELECT * FROM edge_sessions WHERE api_session_id = ? AND service_id = ? AND type = ? LIMIT 1`,
      ),
      byIdentity: db.prepare(`SELECT * FROM edge_sessions WHERE identity_id = ? ORDER BY created_at, id`),
      delete: db.prepare(`DELETE FROM edge_sessions WHERE id = ?`),
      deleteByApiSession: db.prepare(`DELETE FROM edge_sessions WHERE api_session_id = ?`),
      deleteByIdentity: db.prepare(`DELETE FROM edge_sessions WHERE identity_id = ?`),
      identities: db.prepare(`SELECT DISTINCT identity_id FROM edge_sessions`),
      deleteOrphans: db.prepare(
        `DELETE FROM edge_sessions WHERE api_session_id NOT IN (SELECT id FROM api_sessions)`,
      ),
    };
  }

  create(s: EdgeSession): void {
    this.stmts.insert.run(...sessionValues(s));
    this.remember({ ...s });
  }

  /** Forgets every session found (after a rolled-back transaction, or any delete). */
  clearCache(): void {
    this.found.clear();
  }

  private remember(s: EdgeSession): void {
    if (this.found.size >= FOUND_SESSIONS) this.found.clear();
    this.found.set(findKey(s.apiSessionId, s.serviceId, s.type), s);
  }

  get(id: string): EdgeSession | undefined {
    const row = this.stmts.get.get(id) as SessionRow | undefined;
    return row && sessionOf(row);
  }

  getByTokenHash(tokenHash: string): EdgeSession | undefined {
    const row = this.stmts.getByTokenHash.get(tokenHash) as SessionRow | undefined;
    return row && sessionOf(row);
  }

  setTokenHash(id: string, tokenHash: string): boolean {
    this.clearCache();
    return this.stmts.setTokenHash.run(tokenHash, id).changes > 0;
  }

  getMany(ids: readonly string[]): EdgeSession[] {
    return (this.stmts.getMany.all(JSON.stringify(ids)) as SessionRow[]).map(sessionOf);
  }

  all(): EdgeSession[] {
    return (this.stmts.all.all() as SessionRow[]).map(sessionOf);
  }

  list(query: ListQuery): Page<EdgeSession> {
    const { where, params, order, limit, offset } = sessionListSql(query, 'sqlite');
    const total = this.db.prepare(`SELECT COUNT(*) AS n FROM edge_sessions ${where}`).get(...params) as {
      n: number;
    };
    const rows = this.db
      .prepare(`SELECT * FROM edge_sessions ${where} ORDER BY ${order} LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as SessionRow[];
    return { items: rows.map(sessionOf), totalCount: total.n, limit, offset };
  }

  find(apiSessionId: string, serviceId: string, type: PolicyType): EdgeSession | undefined {
    const cached = this.found.get(findKey(apiSessionId, serviceId, type));
    if (cached) return { ...cached };
    const row = this.stmts.find.get(apiSessionId, serviceId, type) as SessionRow | undefined;
    if (!row) return undefined;
    const session = sessionOf(row);
    this.remember(session);
    return { ...session };
  }

  listByIdentity(identityId: string): EdgeSession[] {
    return (this.stmts.byIdentity.all(identityId) as SessionRow[]).map(sessionOf);
  }

  delete(id: string): boolean {
    this.clearCache();
    return this.stmts.delete.run(id).changes > 0;
  }

  deleteMany(ids: readonly string[]): string[] {
    this.clearCache();
    return this.db.transaction(() => ids.filter((id) => this.stmts.delete.run(id).changes > 0))();
  }

  deleteByApiSession(apiSessionId: string): void {
    this.clearCache();
    this.stmts.deleteByApiSession.run(apiSessionId);
  }

  deleteByIdentity(identityId: string): void {
    this.clearCache();
    this.stmts.deleteByIdentity.run(identityId);
  }

  identitiesWithSessions(): string[] {
    return (this.stmts.identities.all() as { identity_id: string }[]).map((r) => r.identity_id);
  }

  deleteOrphans(): number {
    this.clearCache();
    return this.stmts.deleteOrphans.run().changes;
  }
}

export class SqliteFailedRequestRepository implements SyncFailedRequestRepository {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO failed_service_requests (${FAILURE_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      // Everything older than the newest `keep` rows of the identity; the (identity_id, seq) index serves both.
      trim: db.prepare(
        `DELETE FROM failed_service_requests WHERE identity_id = ? AND seq <= (
           SELECT seq FROM failed_service_requests WHERE identity_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      ),
      list: db.prepare(`SELECT * FROM failed_service_requests WHERE identity_id = ? ORDER BY seq`),
      // seq is the primary key: newest first is a walk down it, whatever the table's size.
      recent: db.prepare(`SELECT * FROM failed_service_requests ORDER BY seq DESC LIMIT ? OFFSET ?`),
      count: db.prepare(`SELECT COUNT(*) AS n FROM failed_service_requests`),
      deleteByIdentity: db.prepare(`DELETE FROM failed_service_requests WHERE identity_id = ?`),
    };
  }

  add(identityId: string, r: FailedServiceRequest, keep: number): void {
    this.db.transaction(() => {
      this.stmts.insert.run(...failureValues(identityId, r));
      this.stmts.trim.run(identityId, identityId, keep);
    })();
  }

  list(identityId: string): FailedServiceRequest[] {
    return (this.stmts.list.all(identityId) as FailureRow[]).map(failureOf);
  }

  recent(limit: number, offset: number): (FailedServiceRequest & { identityId: string })[] {
    return (this.stmts.recent.all(limit, offset) as FailureRow[]).map((r) => ({
      ...failureOf(r),
      identityId: r.identity_id,
    }));
  }

  count(): number {
    return (this.stmts.count.get() as { n: number }).n;
  }

  deleteByIdentity(identityId: string): void {
    this.stmts.deleteByIdentity.run(identityId);
  }
}

export class SqliteServiceChangeRepository implements SyncServiceChangeRepository {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      get: db.prepare(`SELECT last_change_at FROM service_changes WHERE identity_id = ?`),
      set: db.prepare(`INSERT OR REPLACE INTO service_changes (identity_id, last_change_at) VALUES (?, ?)`),
      delete: db.prepare(`DELETE FROM service_changes WHERE identity_id = ?`),
    };
  }

  lastChangeAt(identityId: string): Date | undefined {
    const row = this.stmts.get.get(identityId) as { last_change_at: string } | undefined;
    return row && new Date(row.last_change_at);
  }

  markChanged(identityId: string, at: Date): void {
    this.stmts.set.run(identityId, at.toISOString());
  }

  deleteByIdentity(identityId: string): void {
    this.stmts.delete.run(identityId);
  }
}
