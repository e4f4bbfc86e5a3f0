/**
 * API sessions in PostgreSQL, stored by the SHA-256 of their token like SQLite's
 * (store/sqlite/api-session-repository.ts), with the same answers and, like SQLite's, the sessions read kept
 * in memory by token hash: every authenticated request looks its session up twice. Another controller sharing
 * the database may update or end a session at any time: updates and deletes are announced and heard as
 * cross-instance-caches.ts describes. Its last activity is not announced (it moves every few seconds per
 * session); a cached session whose last activity is older than REREAD_IDLE_MS is read again instead, so
 * an instance never judges a session idle, and ends it, on a time another instance has moved.
 *
 * The session's client-supplied parts (envInfo, sdkInfo, …) are a JSON text column, not jsonb: jsonb refuses
 * `\u0000` and lone surrogate escapes, which JSON.stringify writes and SQLite keeps (migrations/001-initial.ts).
 */
import type { ApiSession } from '../../model.js';
import type { ApiSessionRepository, ListQuery, Page } from '../repository.js';
import type { PgDatabase } from './pg-database.js';
import { CACHE_KINDS, CrossInstanceCaches } from './cross-instance-caches.js';
import {
  apiSessionDoc as docOf,
  apiSessionInsertValues,
  apiSessionOf as fromRow,
  type ApiSessionRow as Row,
} from '../rows/api-session-rows.js';

/** A row of a list query: the total, and the page's columns (NULL when the page is empty). */
type PageRow = { total: string } & (Row | { id: null });
const onPage = (r: PageRow): r is { total: string } & Row => r.id !== null;

/** The cache's kind, as the instances announce it. */
const KIND = CACHE_KINDS.apiSessions;
/** Live API sessions kept in memory, at most this many (the least recently read go first), as on SQLite. */
const CACHED_SESSIONS = 10_000;
/**
 * A cached session whose last activity is older than this is read again: another instance may have moved it
 * (it touches every 5 s a session it serves, auth/api-sessions.ts), and only the database knows by how much.
 */
const REREAD_IDLE_MS = 15_000;

/** A copy the caller may change (see SQLite's copyOf): only the top level, as there. */
const copyOf = (s: ApiSession): ApiSession => ({ ...s });

export class PgApiSessionRepository implements ApiSessionRepository {
  private readonly byTokenHash = new Map<string, ApiSession>();
  private readonly tokenHashById = new Map<string, string>();

  /** Without `caches` (which nothing feeds) every read goes to the database. */
  constructor(
    private readonly db: PgDatabase,
    private readonly caches: CrossInstanceCaches = new CrossInstanceCaches(db, ''),
  ) {
    caches.register(KIND, (id) => {
      if (id === undefined) this.clearCache();
      else this.forget(id);
    });
  }

  async getByTokenHash(tokenHash: string): Promise<ApiSession | undefined> {
    const generation = this.caches.readable(KIND);
    if (generation !== undefined) {
      const cached = this.byTokenHash.get(tokenHash);
      if (cached && Date.now() - cached.lastActivityAt.getTime() < REREAD_IDLE_MS) {
        this.byTokenHash.delete(tokenHash);
        this.byTokenHash.set(tokenHash, cached);
        return copyOf(cached);
      }
    }
    const row = await this.db.one<Row>(`SELECT * FROM api_sessions WHERE token_hash = ?`, [tokenHash]);
    if (!row) return undefined;
    const session = fromRow(row);
    if (this.caches.mayKeep(KIND, generation)) this.remember(tokenHash, session);
    return copyOf(session);
  }

  /** From the cache when held (inside a transaction, as every read there, from the database). */
  async get(id: string): Promise<ApiSession | undefined> {
    if (this.caches.readable(KIND) !== undefined) {
      const tokenHash = this.tokenHashById.get(id);
      const cached = tokenHash === undefined ? undefined : this.byTokenHash.get(tokenHash);
      if (cached && Date.now() - cached.lastActivityAt.getTime() < REREAD_IDLE_MS) return copyOf(cached);
    }
    const row = await this.db.one<Row>(`SELECT * FROM api_sessions WHERE id = ?`, [id]);
    return row && fromRow(row);
  }

  clearCache(): void {
    this.byTokenHash.clear();
    this.tokenHashById.clear();
  }

  private remember(tokenHash: string, session: ApiSession): void {
    this.forget(session.id);
    if (this.byTokenHash.size >= CACHED_SESSIONS) {
      const oldest = this.byTokenHash.keys().next().value!;
      this.tokenHashById.delete(this.byTokenHash.get(oldest)!.id);
      this.byTokenHash.delete(oldest);
    }
    this.byTokenHash.set(tokenHash, session);
    this.tokenHashById.set(session.id, tokenHash);
  }

  private forget(id: string): void {
    const tokenHash = this.tokenHashById.get(id);
    if (tokenHash === undefined) return;
    this.tokenHashById.delete(id);
    this.byTokenHash.delete(tokenHash);
  }

  /** Oldest first; sessions created in the same millisecond by id (SQLite leaves that order unstated). */
  async list(query: ListQuery): Promise<Page<ApiSession>> {
    // The count and the page in one statement: one snapshot, one round trip; an empty page still has its
    // count row (the page's columns are NULL then).
    const rows = await this.db.rows<PageRow>(
      `SELECT total.n AS total, page.* FROM (SELECT count(*) AS n FROM api_sessions) total
       LEFT JOIN LATERAL (SELECT * FROM api_sessions ORDER BY created_at, id LIMIT ? OFFSET ?) page ON true`,
      [query.limit, query.offset],
    );
    return { items: rows.filter(onPage).map(fromRow), totalCount: Number(rows[0]?.total ?? 0) };
  }

  async listByIdentity(identityId: string): Promise<ApiSession[]> {
    const rows = await this.db.rows<Row>(
      `SELECT * FROM api_sessions WHERE identity_id = ? ORDER BY created_at, id`,
      [identityId],
    );
    return rows.map(fromRow);
  }

  async listByAuthenticator(authenticatorId: string): Promise<ApiSession[]> {
    // Rare (a signer disabled or deleted): a scan of the table is fine.
    const rows = await this.db.rows<Row>(
      `SELECT * FROM api_sessions WHERE authenticator_id = ? ORDER BY created_at, id`,
      [authenticatorId],
    );
    return rows.map(fromRow);
  }

  async listByIdentities(identityIds: readonly string[]): Promise<ApiSession[]> {
    if (identityIds.length === 0) return [];
    const rows = await this.db.rows<Row>(
      `SELECT * FROM api_sessions WHERE identity_id = ANY(?::text[]) ORDER BY identity_id, created_at, id`,
      [identityIds],
    );
    return rows.map(fromRow);
  }

  async create(s: ApiSession, tokenHash: string): Promise<void> {
    await this.db.run(
      `INSERT INTO api_sessions (id, token_hash, identity_id, authenticator_id, doc, created_at, updated_at,
         last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      apiSessionInsertValues(s, tokenHash),
    );
  }

  async update(s: ApiSession): Promise<void> {
    await this.db.run(`UPDATE api_sessions SET doc = ?, updated_at = ?, last_activity_at = ? WHERE id = ?`, [
      docOf(s),
      s.updatedAt.toISOString(),
      s.lastActivityAt.toISOString(),
      s.id,
    ]);
    await this.caches.changed(KIND, [s.id]);
  }

  /** Not announced (see the top): the cached copy here moves with it, others read again when it looks old. */
  async touch(id: string, at: Date): Promise<void> {
    await this.db.run(`UPDATE api_sessions SET last_activity_at = ? WHERE id = ?`, [at.toISOString(), id]);
    const tokenHash = this.tokenHashById.get(id);
    const cached = tokenHash === undefined ? undefined : this.byTokenHash.get(tokenHash);
    if (this.db.inTransaction()) this.forget(id);
    else if (cached) this.byTokenHash.set(tokenHash!, { ...cached, lastActivityAt: at });
  }

  /** Its posture row goes with it (the cascade): the posture data cached of its identity is dropped too. */
  async delete(id: string): Promise<boolean> {
    const gone = await this.db.rows<{ identity_id: string }>(
      `DELETE FROM api_sessions WHERE id = ? RETURNING identity_id`,
      [id],
    );
    await this.caches.changed(KIND, [id]);
    if (gone.length > 0) await this.caches.changed(CACHE_KINDS.postureData, [gone[0]!.identity_id]);
    return gone.length > 0;
  }

  /**
   * One statement, so two controllers sweeping at once each report only what their own delete removed (the
   * second waits on the first's row locks, then skips the rows gone): every session's end is announced once.
   * In no particular order, as in SQLite.
   */
  async deleteIdleSince(cutoff: Date): Promise<{ id: string; identityId: string }[]> {
    const rows = await this.db.rows<{ id: string; identity_id: string }>(
      `DELETE FROM api_sessions WHERE last_activity_at < ? RETURNING id, identity_id`,
      [cutoff.toISOString()],
    );
    if (rows.length > 0) {
      await this.caches.changed(
        KIND,
        rows.map((r) => r.id),
      );
      await this.caches.changed(CACHE_KINDS.postureData, [...new Set(rows.map((r) => r.identity_id))]);
    }
    return rows.map((r) => ({ id: r.id, identityId: r.identity_id }));
  }
}
