import type { Db } from '../database.js';
import type { Authenticator } from '../../model.js';
import { UniqueViolation, type AuthenticatorRepository, type ListQuery, type Page } from '../repository.js';

interface Row {
  id: string;
  identity_id: string;
  method: string;
  username: string;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): Authenticator => ({
  id: r.id,
  identityId: r.identity_id,
  method: 'updb',
  username: r.username,
  passwordHash: r.password_hash,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

const toParams = (a: Authenticator) => ({
  id: a.id,
  identity_id: a.identityId,
  method: a.method,
  username: a.username,
  password_hash: a.passwordHash,
  created_at: a.createdAt.toISOString(),
  updated_at: a.updatedAt.toISOString(),
});

export class SqliteAuthenticatorRepository implements AuthenticatorRepository {
  constructor(private readonly db: Db) {}

  get(id: string): Authenticator | undefined {
    const row = this.db.prepare(`SELECT * FROM authenticators WHERE id = ?`).get(id) as Row | undefined;
    return row && fromRow(row);
  }

  getByUsername(username: string): Authenticator | undefined {
    const row = this.db.prepare(`SELECT * FROM authenticators WHERE username = ?`).get(username) as
      Row | undefined;
    return row && fromRow(row);
  }

  listByIdentity(identityId: string): Authenticator[] {
    return (
      this.db.prepare(`SELECT * FROM authenticators WHERE identity_id = ?`).all(identityId) as Row[]
    ).map(fromRow);
  }

  list(query: ListQuery): Page<Authenticator> {
    const total = this.db.prepare(`SELECT COUNT(*) AS n FROM authenticators`).get() as { n: number };
    const rows = this.db
      .prepare(`SELECT * FROM authenticators ORDER BY username LIMIT ? OFFSET ?`)
      .all(query.limit, query.offset) as Row[];
    return { items: rows.map(fromRow), totalCount: total.n };
  }

  create(a: Authenticator): void {
    if (this.getByUsername(a.username)) throw new UniqueViolation('username', a.username);
    this.db
      .prepare(
        `INSERT INTO authenticators (id, identity_id, method, username, password_hash, created_at, updated_at)
         VALUES (@id, @identity_id, @method, @username, @password_hash, @created_at, @updated_at)`,
      )
      .run(toParams(a));
  }

  update(a: Authenticator): boolean {
    const other = this.getByUsername(a.username);
    if (other && other.id !== a.id) throw new UniqueViolation('username', a.username);
    return (
      this.db
        .prepare(
          `UPDATE authenticators SET username = @username, password_hash = @password_hash, updated_at = @updated_at WHERE id = @id`,
        )
        .run(toParams(a)).changes > 0
    );
  }

  delete(id: string): boolean {
    return this.db.prepare(`DELETE FROM authenticators WHERE id = ?`).run(id).changes > 0;
  }

  deleteByIdentity(identityId: string): void {
    this.db.prepare(`DELETE FROM authenticators WHERE identity_id = ?`).run(identityId);
  }
}
