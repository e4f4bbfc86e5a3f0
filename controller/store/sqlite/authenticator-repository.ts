import type { Db } from '../database.js';
import type { Authenticator, CertAuthenticator, UpdbAuthenticator } from '../../model.js';
import {
  UniqueViolation,
  type SyncAuthenticatorRepository,
  type ListQuery,
  type Page,
} from '../repository.js';
import { compileFilter } from '../filter/index.js';
import { MAX_LIMIT } from '../page.js';
import { AUTHENTICATOR_FILTER_FIELDS, authenticatorOrder } from '../authenticator-filter.js';
import { authenticatorOf as fromRow, type AuthenticatorRow as Row } from '../rows/authenticator-rows.js';

const toParams = (a: Authenticator) => ({
  id: a.id,
  identity_id: a.identityId,
  method: a.method,
  username: a.method === 'updb' ? a.username : null,
  password_hash: a.method === 'updb' ? a.passwordHash : null,
  cert_fingerprint: a.method === 'cert' ? a.fingerprint : null,
  cert_pem: a.method === 'cert' ? a.certPem : null,
  created_at: a.createdAt.toISOString(),
  updated_at: a.updatedAt.toISOString(),
});

export class SqliteAuthenticatorRepository implements SyncAuthenticatorRepository {
  constructor(private readonly db: Db) {}

  get(id: string): Authenticator | undefined {
    const row = this.db.prepare(`SELECT * FROM authenticators WHERE id = ?`).get(id) as Row | undefined;
    return row && fromRow(row);
  }

  getByUsername(username: string): UpdbAuthenticator | undefined {
    const row = this.db
      .prepare(`SELECT * FROM authenticators WHERE username = ? AND method = 'updb'`)
      .get(username) as Row | undefined;
    return row && (fromRow(row) as UpdbAuthenticator);
  }

  getByFingerprint(fingerprint: string): CertAuthenticator | undefined {
    const row = this.db
      .prepare(`SELECT * FROM authenticators WHERE cert_fingerprint = ? AND method = 'cert'`)
      .get(fingerprint) as Row | undefined;
    return row && (fromRow(row) as CertAuthenticator);
  }

  hasCertAuthenticators(): boolean {
    return this.db.prepare(`SELECT 1 FROM authenticators WHERE method = 'cert' LIMIT 1`).get() !== undefined;
  }

  listByIdentity(identityId: string): Authenticator[] {
    return (
      this.db.prepare(`SELECT * FROM authenticators WHERE identity_id = ?`).all(identityId) as Row[]
    ).map(fromRow);
  }

  /** rowid is insertion order: what `listByIdentity`'s scan of the identity index answers each identity's in. */
  listByIdentities(identityIds: readonly string[]): Authenticator[] {
    if (identityIds.length === 0) return [];
    return (
      this.db
        .prepare(
          `SELECT * FROM authenticators WHERE identity_id IN (SELECT value FROM json_each(?))
           ORDER BY identity_id, rowid`,
        )
        .all(JSON.stringify(identityIds)) as Row[]
    ).map(fromRow);
  }

  list(query: ListQuery): Page<Authenticator> {
    const compiled = compileFilter(query.filter ?? '', AUTHENTICATOR_FILTER_FIELDS);
    const where = compiled.where ? `WHERE ${compiled.where}` : '';
    const limit = Math.min(compiled.limit ?? query.limit, MAX_LIMIT);
    const offset = compiled.offset ?? query.offset;
    const total = this.db
      .prepare(`SELECT COUNT(*) AS n FROM authenticators ${where}`)
      .get(...compiled.params) as { n: number };
    const rows = this.db
      .prepare(
        `SELECT * FROM authenticators ${where} ORDER BY ${authenticatorOrder(compiled.orderBy)} LIMIT ? OFFSET ?`,
      )
      .all(...compiled.params, limit, offset) as Row[];
    return { items: rows.map(fromRow), totalCount: total.n, limit, offset };
  }

  create(a: Authenticator): void {
    if (a.method === 'updb' && this.getByUsername(a.username))
      throw new UniqueViolation('username', a.username);
    if (a.method === 'cert' && this.getByFingerprint(a.fingerprint))
      throw new UniqueViolation('fingerprint', a.fingerprint);
    this.db
      .prepare(
        `INSERT INTO authenticators (id, identity_id, method, username, password_hash, cert_fingerprint, cert_pem,
           created_at, updated_at)
         VALUES (@id, @identity_id, @method, @username, @password_hash, @cert_fingerprint, @cert_pem,
           @created_at, @updated_at)`,
      )
      .run(toParams(a));
  }

  update(a: Authenticator): boolean {
    if (a.method === 'updb') {
      const other = this.getByUsername(a.username);
      if (other && other.id !== a.id) throw new UniqueViolation('username', a.username);
    }
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
