/**
 * Posture evaluation's records, one code for both databases (store/sql/statement.ts): edge sessions, failed
 * session requests, service-change marks.
 *
 * Deletes of edge sessions are one statement that locks the rows in id order first (`dialect.forUpdate`): two
 * PostgreSQL controllers deleting overlapping sets (a revocation here, a sign-out there) then wait for each
 * other instead of deadlocking, as they could if each locked rows in the order its plan scans them; SQLite's
 * transactions hold the whole file anyway.
 */
import type { PolicyType } from '../../model.js';
import type { ListQuery, Page } from '../repository.js';
import type { EdgeSession, FailedServiceRequest } from '../posture-repository.js';
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
import type { Dialect } from '../sql/dialect.js';
import { pageWithTotal } from '../sql/paged.js';
import { atomic, one, outboxWritten, rows, run, type Fragment, type Sql } from '../sql/statement.js';

/**
 * Where the sessions `find` answered are kept: an agent asks for its session to a service again and again
 * (each new connection does), and the existing one is then handed out without a read. SQLite keeps them in
 * its own memory (`LocalFoundSessions`); PostgreSQL under the rules of cross-instance-caches.ts
 * (store/postgres/found-edge-sessions.ts), which announce every change to the other instances.
 */
export interface FoundSessions {
  /** the session kept for this API session, service and type, when memory may answer now */
  get(apiSessionId: string, serviceId: string, type: PolicyType): EdgeSession | undefined;
  /** a read from the database starts: what to hand `keep` with its answer (undefined: keep nothing) */
  reading(): number | undefined;
  keep(from: number | undefined, session: EdgeSession): void;
  /** a session was written */
  created(session: EdgeSession): void;
  /** the edge sessions of these API sessions were removed or changed (after the statement) */
  touched(apiSessionIds: readonly string[]): Sql<void>;
  /** forgets everything (a rolled-back transaction) */
  clear(): void;
}

/** Sessions SQLite's `find` keeps in memory, at most (then it starts afresh). */
const FOUND_SESSIONS = 10_000;

const foundKey = (apiSessionId: string, serviceId: string, type: PolicyType) =>
  `${apiSessionId}\u0000${serviceId}\u0000${type}`;

/**
 * SQLite's: one process owns the file, so a create adds to it, every delete or re-key (rare: a revocation, a
 * sign-out) forgets all of it, and the store clears it when a transaction rolls back.
 */
export class LocalFoundSessions implements FoundSessions {
  private readonly found = new Map<string, EdgeSession>();

  get(apiSessionId: string, serviceId: string, type: PolicyType): EdgeSession | undefined {
    return this.found.get(foundKey(apiSessionId, serviceId, type));
  }

  reading(): number {
    return 0;
  }

  keep(_from: number | undefined, s: EdgeSession): void {
    if (this.found.size >= FOUND_SESSIONS) this.found.clear();
    this.found.set(foundKey(s.apiSessionId, s.serviceId, s.type), s);
  }

  created(s: EdgeSession): void {
    this.keep(0, { ...s });
  }

  // eslint-disable-next-line require-yield
  *touched(): Sql<void> {
    this.found.clear();
  }

  clear(): void {
    this.found.clear();
  }
}

/** The edge sessions deleted: their ids and API sessions. */
type Deleted = { id: string; api_session_id: string };

export class EdgeSessionQueries {
  constructor(
    private readonly dialect: Dialect,
    private readonly found: FoundSessions,
  ) {}

  *create(s: EdgeSession): Sql<void> {
    yield* run(
      `INSERT INTO edge_sessions (${SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      sessionValues(s),
    );
    yield* outboxWritten();
    this.found.created(s);
  }

  /** Forgets every session found (the store calls it after a rolled-back transaction). */
  clearCache(): void {
    this.found.clear();
  }

  *get(id: string): Sql<EdgeSession | undefined> {
    const row = yield* one<SessionRow>(`SELECT * FROM edge_sessions WHERE id = ?`, [id]);
    return row && sessionOf(row);
  }

  *getByTokenHash(tokenHash: string): Sql<EdgeSession | undefined> {
    const row = yield* one<SessionRow>(`SELECT * FROM edge_sessions WHERE token_hash = ?`, [tokenHash]);
    return row && sessionOf(row);
  }

  *setTokenHash(id: string, tokenHash: string): Sql<boolean> {
    const changed = yield* rows<{ api_session_id: string }>(
      `UPDATE edge_sessions SET token_hash = ? WHERE id = ? RETURNING api_session_id`,
      [tokenHash, id],
    );
    yield* this.found.touched(changed.map((r) => r.api_session_id));
    return changed.length > 0;
  }

  /** The page and the total from one snapshot (one statement); a page without rows is counted on its own. */
  *list(query: ListQuery): Sql<Page<EdgeSession>> {
    const { where, params, order, limit, offset } = sessionListSql(query, this.dialect.name);
    const page = yield* pageWithTotal<SessionRow>(
      'edge_sessions',
      'edge_sessions.*',
      { sql: where, params },
      order,
      limit,
      offset,
    );
    return { items: page.rows.map(sessionOf), totalCount: page.total, limit, offset };
  }

  *getMany(ids: readonly string[]): Sql<EdgeSession[]> {
    const asked = this.dialect.oneOf('id', ids);
    return (yield* rows<SessionRow>(`SELECT * FROM edge_sessions WHERE ${asked.sql}`, asked.params)).map(
      sessionOf,
    );
  }

  *all(): Sql<EdgeSession[]> {
    return (yield* rows<SessionRow>(`SELECT * FROM edge_sessions`)).map(sessionOf);
  }

  /** From memory when kept (no statement); the oldest when a race left two, so every caller settles on one. */
  *find(apiSessionId: string, serviceId: string, type: PolicyType): Sql<EdgeSession | undefined> {
    const cached = this.found.get(apiSessionId, serviceId, type);
    if (cached) return { ...cached };
    const from = this.found.reading();
    const row = yield* one<SessionRow>(
      `SELECT * FROM edge_sessions WHERE api_session_id = ? AND service_id = ? AND type = ?
       ORDER BY created_at, id LIMIT 1`,
      [apiSessionId, serviceId, type],
    );
    if (!row) return undefined;
    const session = sessionOf(row);
    this.found.keep(from, session);
    return { ...session };
  }

  *listByIdentity(identityId: string): Sql<EdgeSession[]> {
    const found = yield* rows<SessionRow>(
      `SELECT * FROM edge_sessions WHERE identity_id = ? ORDER BY created_at, id`,
      [identityId],
    );
    return found.map(sessionOf);
  }

  /** Of two callers racing to delete one session, exactly one is answered true: the one whose DELETE took the row. */
  *delete(id: string): Sql<boolean> {
    return (yield* this.deleteWhere({ sql: 'id = ?', params: [id] })).length > 0;
  }

  /** The ids deleted, in the order asked, each once. */
  *deleteMany(ids: readonly string[]): Sql<string[]> {
    if (ids.length === 0) return [];
    const deleted = new Set((yield* this.deleteWhere(this.dialect.oneOf('id', ids))).map((r) => r.id));
    return ids.filter((id) => deleted.delete(id));
  }

  *deleteByApiSession(apiSessionId: string): Sql<void> {
    yield* this.deleteWhere({ sql: 'api_session_id = ?', params: [apiSessionId] });
  }

  *deleteByIdentity(identityId: string): Sql<void> {
    yield* this.deleteWhere({ sql: 'identity_id = ?', params: [identityId] });
  }

  *identitiesWithSessions(): Sql<string[]> {
    const found = yield* rows<{ identity_id: string }>(
      `SELECT DISTINCT identity_id FROM edge_sessions ORDER BY identity_id`,
    );
    return found.map((r) => r.identity_id);
  }

  *deleteOrphans(): Sql<number> {
    const deleted = yield* this.deleteWhere({
      sql: 'NOT EXISTS (SELECT 1 FROM api_sessions a WHERE a.id = edge_sessions.api_session_id)',
      params: [],
    });
    return deleted.length;
  }

  /** Deletes the sessions matching `condition` (rows locked in id order, see the top); the outbox is told. */
  private *deleteWhere(condition: Fragment): Sql<Deleted[]> {
    const deleted = yield* rows<Deleted>(
      `DELETE FROM edge_sessions WHERE id IN (
         SELECT id FROM edge_sessions WHERE ${condition.sql} ORDER BY id ${this.dialect.forUpdate})
       RETURNING id, api_session_id`,
      condition.params,
    );
    if (deleted.length > 0) yield* outboxWritten();
    yield* this.found.touched(deleted.map((r) => r.api_session_id));
    return deleted;
  }
}

export class FailedRequestQueries {
  constructor(private readonly dialect: Dialect) {}

  /** Appends and keeps only the newest `keep` records of the identity (none: the new one goes too). */
  *add(identityId: string, r: FailedServiceRequest, keep: number): Sql<void> {
    if (keep <= 0) return yield* this.deleteByIdentity(identityId);
    // Everything older than the newest `keep` rows of the identity; the (identity_id, seq) index serves it.
    const trim = `DELETE FROM failed_service_requests WHERE identity_id = ? AND seq <= (
      SELECT seq FROM (SELECT seq FROM failed_service_requests WHERE identity_id = ? %s) newest
      ORDER BY seq DESC LIMIT 1 OFFSET ?)`;
    const insert = `INSERT INTO failed_service_requests (${FAILURE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`;
    const values = failureValues(identityId, r);
    if (this.dialect.name === 'postgres') {
      // One statement (one round trip): the insert and the trim. The trim cannot see the row the insert adds
      // (one snapshot), so the cut-off is found among the rows it sees plus the new one. SQLite has no
      // writing CTE; its two statements cost no round trip.
      yield* run(
        `WITH added AS (${insert} RETURNING seq) ${trim.replace('%s', 'UNION ALL SELECT seq FROM added')}`,
        [...values, identityId, identityId, keep],
      );
      return;
    }
    yield* atomic(function* () {
      yield* run(insert, values);
      yield* run(trim.replace('%s', ''), [identityId, identityId, keep]);
    });
  }

  /** oldest first */
  *list(identityId: string): Sql<FailedServiceRequest[]> {
    const found = yield* rows<FailureRow>(
      `SELECT * FROM failed_service_requests WHERE identity_id = ? ORDER BY seq`,
      [identityId],
    );
    return found.map(failureOf);
  }

  /** Every identity's, newest first: a walk down the primary key, whatever the table's size. */
  *recent(limit: number, offset: number): Sql<(FailedServiceRequest & { identityId: string })[]> {
    // A negative LIMIT means none and a negative OFFSET 0 (SQLite's reading; PostgreSQL refuses both).
    const found = yield* rows<FailureRow>(
      `SELECT * FROM failed_service_requests ORDER BY seq DESC LIMIT ? OFFSET ?`,
      [limit < 0 ? Number.MAX_SAFE_INTEGER : limit, Math.max(0, offset)],
    );
    return found.map((r) => ({ ...failureOf(r), identityId: r.identity_id }));
  }

  *count(): Sql<number> {
    const row = yield* one<{ n: number }>(
      `SELECT CAST(count(*) AS INTEGER) AS n FROM failed_service_requests`,
    );
    return Number(row!.n);
  }

  *deleteByIdentity(identityId: string): Sql<void> {
    yield* run(`DELETE FROM failed_service_requests WHERE identity_id = ?`, [identityId]);
  }
}

export class ServiceChangeQueries {
  *lastChangeAt(identityId: string): Sql<Date | undefined> {
    const row = yield* one<{ last_change_at: string }>(
      `SELECT last_change_at FROM service_changes WHERE identity_id = ?`,
      [identityId],
    );
    return row && new Date(row.last_change_at);
  }

  /** An upsert: the outbox's insert or update trigger writes one `access.changed` row either way. */
  *markChanged(identityId: string, at: Date): Sql<void> {
    yield* run(
      `INSERT INTO service_changes (identity_id, last_change_at) VALUES (?, ?)
       ON CONFLICT (identity_id) DO UPDATE SET last_change_at = excluded.last_change_at`,
      [identityId, at.toISOString()],
    );
    yield* outboxWritten();
  }

  *deleteByIdentity(identityId: string): Sql<void> {
    yield* run(`DELETE FROM service_changes WHERE identity_id = ?`, [identityId]);
  }
}
