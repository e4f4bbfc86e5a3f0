import type { Db } from '../database.js';
import type { ApiSession } from '../../model.js';
import type { SyncApiSessionRepository, ListQuery, Page } from '../repository.js';
import {
  apiSessionDoc as docOf,
  apiSessionInsertValues,
  apiSessionOf as fromRow,
  type ApiSessionRow as Row,
} from '../rows/api-session-rows.js';

/**
 * A copy whose fields the caller may set without touching what the cache holds (signing in with a TOTP sets
 * `isMfaComplete`, a request moves `lastActivityAt`). Only the top level is copied: every request pays for
 * this, and no caller changes what a field holds (a date, the info objects, the config types) in place.
 */
const copyOf = (s: ApiSession): ApiSession => ({ ...s });

/** Live API sessions kept in memory, at most this many (the least recently read go first). */
const CACHED_SESSIONS = 10_000;

/**
 * API sessions are stored by the SHA-256 of their token, so a copy of the database holds no usable token.
 *
 * Every authenticated request looks its session up by token, so sessions read are kept in memory by token
 * hash. Every write here (update, touch, delete, the idle sweep) drops the session's entry before it runs,
 * so the next read goes to the database; the store clears the whole cache when a transaction rolls back,
 * so nothing read inside a rolled-back transaction outlives it. Callers get copies, never the cached object.
 */
export class SqliteApiSessionRepository implements SyncApiSessionRepository {
  private readonly stmts;
  private readonly byTokenHash = new Map<string, ApiSession>();
  private readonly tokenHashById = new Map<string, string>();

  constructor(private readonly db: Db) {
    this.stmts = {
      byToken: db.prepare(`SELECT * FROM api_sessions WHERE token_hash = ?`),
      byId: db.prepare(`SELECT * FROM api_sessions WHERE id = ?`),
      byIdentity: db.prepare(`SELECT * FROM api_sessions WHERE identity_id = ? ORDER BY created_at`),
      // rowid after created_at: sessions of one millisecond in the order the identity index holds them, as
      // byIdentity's scan of that index meets them.
      byIdentities: db.prepare(
        `SELECT * FROM api_sessions WHERE identity_id IN (SELECT value FROM json_each(?))
         ORDER BY identity_id, created_at, rowid`,
      ),
      insert: db.prepare(
        `INSERT INTO api_sessions (id, token_hash, identity_id, authenticator_id, doc, created_at, updated_at, last_activity_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      update: db.prepare(
        `UPDATE api_sessions SET doc = ?, updated_at = ?, last_activity_at = ? WHERE id = ?`,
      ),
      touch: db.prepare(`UPDATE api_sessions SET last_activity_at = ? WHERE id = ?`),
      delete: db.prepare(`DELETE FROM api_sessions WHERE id = ?`),
      idle: db.prepare(`SELECT id, identity_id FROM api_sessions WHERE last_activity_at < ?`),
    };
  }

  getByTokenHash(tokenHash: string): ApiSession | undefined {
    const cached = this.byTokenHash.get(tokenHash);
    if (cached) {
      // Most recently read last, so eviction takes the sessions idle the longest.
      this.byTokenHash.delete(tokenHash);
      this.byTokenHash.set(tokenHash, cached);
      return copyOf(cached);
    }
    const row = this.stmts.byToken.get(tokenHash) as Row | undefined;
    if (!row) return undefined;
    const session = fromRow(row);
    this.remember(tokenHash, session);
    return copyOf(session);
  }

  get(id: string): ApiSession | undefined {
    const tokenHash = this.tokenHashById.get(id);
    const cached = tokenHash === undefined ? undefined : this.byTokenHash.get(tokenHash);
    if (cached) return copyOf(cached);
    const row = this.stmts.byId.get(id) as Row | undefined;
    return row && fromRow(row);
  }

  /** Forgets every cached session (after a rolled-back transaction). */
  clearCache(): void {
    this.byTokenHash.clear();
    this.tokenHashById.clear();
  }

  private remember(tokenHash: string, session: ApiSession): void {
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

  list(query: ListQuery): Page<ApiSession> {
    const total = this.db.prepare(`SELECT COUNT(*) AS n FROM api_sessions`).get() as { n: number };
    const rows = this.db
      .prepare(`SELECT * FROM api_sessions ORDER BY created_at LIMIT ? OFFSET ?`)
      .all(query.limit, query.offset) as Row[];
    return { items: rows.map(fromRow), totalCount: total.n };
  }

  listByIdentity(identityId: string): ApiSession[] {
    return (this.stmts.byIdentity.all(identityId) as Row[]).map(fromRow);
  }

  /** Read past the cache, like listByIdentity: a list neither fills it nor is answered from it. */
  listByAuthenticator(authenticatorId: string): ApiSession[] {
    // Rare (a signer disabled or deleted): a scan of the table is fine.
    const rows = this.db
      .prepare(`SELECT * FROM api_sessions WHERE authenticator_id = ? ORDER BY created_at`)
      .all(authenticatorId) as Row[];
    return rows.map(fromRow);
  }

  listByIdentities(identityIds: readonly string[]): ApiSession[] {
    if (identityIds.length === 0) return [];
    return (this.stmts.byIdentities.all(JSON.stringify(identityIds)) as Row[]).map(fromRow);
  }

  create(s: ApiSession, tokenHash: string): void {
    this.forget(s.id);
    this.stmts.insert.run(...apiSessionInsertValues(s, tokenHash));
  }

  update(s: ApiSession): void {
    this.forget(s.id);
    this.stmts.update.run(docOf(s), s.updatedAt.toISOString(), s.lastActivityAt.toISOString(), s.id);
  }

  touch(id: string, at: Date): void {
    this.forget(id);
    this.stmts.touch.run(at.toISOString(), id);
  }

  delete(id: string): boolean {
    this.forget(id);
    return this.stmts.delete.run(id).changes > 0;
  }

  deleteIdleSince(cutoff: Date): { id: string; identityId: string }[] {
    return this.db.transaction(() => {
      const rows = this.stmts.idle.all(cutoff.toISOString()) as { id: string; identity_id: string }[];
      for (const row of rows) {
        this.forget(row.id);
        this.stmts.delete.run(row.id);
      }
      return rows.map((r) => ({ id: r.id, identityId: r.identity_id }));
    })();
  }
}
