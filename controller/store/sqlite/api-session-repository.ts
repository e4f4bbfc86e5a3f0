import type { Db } from '../database.js';
import type { ApiSession } from '../../model.js';
import type { ApiSessionRepository, ListQuery, Page } from '../repository.js';

interface Row {
  id: string;
  identity_id: string;
  authenticator_id: string;
  doc: string;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

type SessionDoc = Omit<
  ApiSession,
  'id' | 'identityId' | 'authenticatorId' | 'createdAt' | 'updatedAt' | 'lastActivityAt'
>;

function fromRow(r: Row): ApiSession {
  const doc = JSON.parse(r.doc) as SessionDoc;
  return {
    ...doc,
    id: r.id,
    identityId: r.identity_id,
    authenticatorId: r.authenticator_id,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    lastActivityAt: new Date(r.last_activity_at),
  };
}

function docOf(s: ApiSession): string {
  const {
    id: _i,
    identityId: _d,
    authenticatorId: _a,
    createdAt: _c,
    updatedAt: _u,
    lastActivityAt: _l,
    ...doc
  } = s;
  return JSON.stringify(doc);
}

/** API sessions are stored by the SHA-256 of their token, so a copy of the database holds no usable token. */
export class SqliteApiSessionRepository implements ApiSessionRepository {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      byToken: db.prepare(`SELECT * FROM api_sessions WHERE token_hash = ?`),
      byId: db.prepare(`SELECT * FROM api_sessions WHERE id = ?`),
      byIdentity: db.prepare(`SELECT * FROM api_sessions WHERE identity_id = ? ORDER BY created_at`),
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
    const row = this.stmts.byToken.get(tokenHash) as Row | undefined;
    return row && fromRow(row);
  }

  get(id: string): ApiSession | undefined {
    const row = this.stmts.byId.get(id) as Row | undefined;
    return row && fromRow(row);
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

  create(s: ApiSession, tokenHash: string): void {
    this.stmts.insert.run(
      s.id,
      tokenHash,
      s.identityId,
      s.authenticatorId,
      docOf(s),
      s.createdAt.toISOString(),
      s.updatedAt.toISOString(),
      s.lastActivityAt.toISOString(),
    );
  }

  update(s: ApiSession): void {
    this.stmts.update.run(docOf(s), s.updatedAt.toISOString(), s.lastActivityAt.toISOString(), s.id);
  }

  touch(id: string, at: Date): void {
    this.stmts.touch.run(at.toISOString(), id);
  }

  delete(id: string): boolean {
    return this.stmts.delete.run(id).changes > 0;
  }

  deleteIdleSince(cutoff: Date): { id: string; identityId: string }[] {
    return this.db.transaction(() => {
      const rows = this.stmts.idle.all(cutoff.toISOString()) as { id: string; identity_id: string }[];
      for (const row of rows) this.stmts.delete.run(row.id);
      return rows.map((r) => ({ id: r.id, identityId: r.identity_id }));
    })();
  }
}
