/**
 * API sessions in PostgreSQL, stored by the SHA-256 of their token like SQLite's
 * (store/sqlite/api-session-repository.ts), with the same answers. Unlike SQLite's there is no in-memory
 * cache: another controller sharing the database may update, touch or end a session at any time.
 *
 * The session's client-supplied parts (envInfo, sdkInfo, …) are a JSON text column, not jsonb: jsonb refuses
 * `\u0000` and lone surrogate escapes, which JSON.stringify writes and SQLite keeps (migrations/001-initial.ts).
 */
import type { ApiSession } from '../../model.js';
import type { ApiSessionRepository, ListQuery, Page } from '../repository.js';
import type { PgDatabase } from './pg-database.js';
import {
  apiSessionDoc as docOf,
  apiSessionInsertValues,
  apiSessionOf as fromRow,
  type ApiSessionRow as Row,
} from '../rows/api-session-rows.js';

/** A row of a list query: the total, and the page's columns (NULL when the page is empty). */
type PageRow = { total: string } & (Row | { id: null });
const onPage = (r: PageRow): r is { total: string } & Row => r.id !== null;

export class PgApiSessionRepository implements ApiSessionRepository {
  constructor(private readonly db: PgDatabase) {}

  async getByTokenHash(tokenHash: string): Promise<ApiSession | undefined> {
    const row = await this.db.one<Row>(`SELECT * FROM api_sessions WHERE token_hash = ?`, [tokenHash]);
    return row && fromRow(row);
  }

  async get(id: string): Promise<ApiSession | undefined> {
    const row = await this.db.one<Row>(`SELECT * FROM api_sessions WHERE id = ?`, [id]);
    return row && fromRow(row);
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
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.db.run(`UPDATE api_sessions SET last_activity_at = ? WHERE id = ?`, [at.toISOString(), id]);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM api_sessions WHERE id = ?`, [id])) > 0;
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
    return rows.map((r) => ({ id: r.id, identityId: r.identity_id }));
  }
}
