/**
 * API sessions, one code for both databases (store/sql/statement.ts), stored by the SHA-256 of their token so
 * a copy of the database holds no usable token. The client-supplied parts (envInfo, sdkInfo, …) are one JSON
 * text column, `doc` (not jsonb on PostgreSQL: jsonb refuses `\u0000` and lone surrogate escapes, which
 * JSON.stringify writes).
 *
 * Given a cache (SQLite's store, one process per database file), sessions read by token hash are kept in it
 * and answered without a statement; every write here forgets the session's entry before it runs, and the store
 * clears the whole cache when a transaction rolls back, so nothing read inside a rolled-back transaction
 * outlives it. Callers get copies, never the cached object. PostgreSQL's store, shared by several controllers,
 * builds this without a cache and keeps its own under the cross-instance rules
 * (postgres/api-session-repository.ts).
 */
import type { ApiSession } from '../../model.js';
import type { ListQuery, Page } from '../repository.js';
import {
  apiSessionDoc as docOf,
  apiSessionInsertValues,
  apiSessionOf as fromRow,
  type ApiSessionRow as Row,
} from '../rows/api-session-rows.js';
import type { Dialect } from '../sql/dialect.js';
import { pageWithTotal } from '../sql/paged.js';
import { one, rows, run, type Sql } from '../sql/statement.js';
import { copyOf, type ApiSessionCache } from './api-session-cache.js';

/** Oldest first, sessions of one millisecond by id (every list answers in this order). */
const OLDEST_FIRST = 'created_at, id';

export class ApiSessionQueries {
  constructor(
    private readonly dialect: Dialect,
    private readonly cache?: ApiSessionCache,
  ) {}

  *getByTokenHash(tokenHash: string): Sql<ApiSession | undefined> {
    const cached = this.cache?.byToken(tokenHash);
    if (cached) return copyOf(cached);
    const row = yield* one<Row>(`SELECT * FROM api_sessions WHERE token_hash = ?`, [tokenHash]);
    if (!row) return undefined;
    const session = fromRow(row);
    this.cache?.remember(tokenHash, session);
    return copyOf(session);
  }

  /** From the cache when held; a read by id fills nothing (the token hash is the cache's key). */
  *get(id: string): Sql<ApiSession | undefined> {
    const cached = this.cache?.byId(id);
    if (cached) return copyOf(cached);
    const row = yield* one<Row>(`SELECT * FROM api_sessions WHERE id = ?`, [id]);
    return row && fromRow(row);
  }

  /** Forgets every cached session (after a rolled-back transaction). */
  clearCache(): void {
    this.cache?.clear();
  }

  *list(query: ListQuery): Sql<Page<ApiSession>> {
    const page = yield* pageWithTotal<Row>(
      'api_sessions',
      'api_sessions.*',
      { sql: '', params: [] },
      `api_sessions.created_at, api_sessions.id`,
      query.limit,
      query.offset,
    );
    return { items: page.rows.map(fromRow), totalCount: page.total };
  }

  /** Read past the cache, as every list: a list neither fills it nor is answered from it. */
  *listByIdentity(identityId: string): Sql<ApiSession[]> {
    const found = yield* rows<Row>(
      `SELECT * FROM api_sessions WHERE identity_id = ? ORDER BY ${OLDEST_FIRST}`,
      [identityId],
    );
    return found.map(fromRow);
  }

  *listByAuthenticator(authenticatorId: string): Sql<ApiSession[]> {
    // Rare (a signer disabled or deleted): a scan of the table is fine.
    const found = yield* rows<Row>(
      `SELECT * FROM api_sessions WHERE authenticator_id = ? ORDER BY ${OLDEST_FIRST}`,
      [authenticatorId],
    );
    return found.map(fromRow);
  }

  *listByIdentities(identityIds: readonly string[]): Sql<ApiSession[]> {
    if (identityIds.length === 0) return [];
    const asked = this.dialect.oneOf('identity_id', identityIds);
    const found = yield* rows<Row>(
      `SELECT * FROM api_sessions WHERE ${asked.sql} ORDER BY identity_id, ${OLDEST_FIRST}`,
      asked.params,
    );
    return found.map(fromRow);
  }

  *create(s: ApiSession, tokenHash: string): Sql<void> {
    this.cache?.forget(s.id);
    yield* run(
      `INSERT INTO api_sessions (id, token_hash, identity_id, authenticator_id, doc, created_at, updated_at,
         last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      apiSessionInsertValues(s, tokenHash),
    );
  }

  *update(s: ApiSession): Sql<void> {
    this.cache?.forget(s.id);
    yield* run(`UPDATE api_sessions SET doc = ?, updated_at = ?, last_activity_at = ? WHERE id = ?`, [
      docOf(s),
      s.updatedAt.toISOString(),
      s.lastActivityAt.toISOString(),
      s.id,
    ]);
  }

  *touch(id: string, at: Date): Sql<void> {
    this.cache?.forget(id);
    yield* run(`UPDATE api_sessions SET last_activity_at = ? WHERE id = ?`, [at.toISOString(), id]);
  }

  *delete(id: string): Sql<boolean> {
    return (yield* this.end(id)) !== undefined;
  }

  /** Deletes the session: the identity it was of, or undefined when there was none. */
  *end(id: string): Sql<string | undefined> {
    this.cache?.forget(id);
    const gone = yield* one<{ identity_id: string }>(
      `DELETE FROM api_sessions WHERE id = ? RETURNING identity_id`,
      [id],
    );
    return gone?.identity_id;
  }

  /**
   * One statement, so two controllers sweeping at once each answer only what their own delete removed (the
   * second waits on the first's row locks, then skips the rows gone). In no particular order.
   */
  *deleteIdleSince(cutoff: Date): Sql<{ id: string; identityId: string }[]> {
    const gone = yield* rows<{ id: string; identity_id: string }>(
      `DELETE FROM api_sessions WHERE last_activity_at < ? RETURNING id, identity_id`,
      [cutoff.toISOString()],
    );
    for (const r of gone) this.cache?.forget(r.id);
    return gone.map((r) => ({ id: r.id, identityId: r.identity_id }));
  }
}
