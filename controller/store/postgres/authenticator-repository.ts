/**
 * Authenticators in PostgreSQL: the same answers as SQLite's repository (store/sqlite/authenticator-repository.ts).
 *
 * SQLite checks a username or fingerprint before writing; here the unique keys themselves decide (another
 * controller may take the username between a check and the write), and their violation becomes the same
 * UniqueViolation. No cache: several controllers share the table.
 */
import type { Authenticator, CertAuthenticator, UpdbAuthenticator } from '../../model.js';
import { UniqueViolation, type AuthenticatorRepository, type ListQuery, type Page } from '../repository.js';
import type { PgDatabase } from './pg-database.js';
import { compileFilter } from '../filter/index.js';
import { MAX_LIMIT } from '../page.js';
import { AUTHENTICATOR_FILTER_FIELDS, authenticatorOrder } from '../authenticator-filter.js';
import { authenticatorOf as fromRow, type AuthenticatorRow as Row } from '../rows/authenticator-rows.js';

/** A row of a list query: the total, and the page's columns (NULL when the page is empty). */
type PageRow = { total: string } & (Row | { id: null });
const onPage = (r: PageRow): r is { total: string } & Row => r.id !== null;

const username = (a: Authenticator) => (a.method === 'updb' ? a.username : null);
const passwordHash = (a: Authenticator) => (a.method === 'updb' ? a.passwordHash : null);

/** The unique keys SQLite's repository checks, by their PostgreSQL name, and the field each one guards. */
const UNIQUE_FIELDS: Record<string, 'username' | 'fingerprint'> = {
  authenticators_username_key: 'username',
  authenticators_by_fingerprint: 'fingerprint',
};

/** The UniqueViolation SQLite would have thrown for this error, if any (a taken id stays a database error). */
function uniqueViolationOf(err: unknown, a: Authenticator): UniqueViolation | undefined {
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  const field = code === '23505' && typeof constraint === 'string' ? UNIQUE_FIELDS[constraint] : undefined;
  if (field === 'username' && a.method === 'updb') return new UniqueViolation('username', a.username);
  if (field === 'fingerprint' && a.method === 'cert')
    return new UniqueViolation('fingerprint', a.fingerprint);
  return undefined;
}

export class PgAuthenticatorRepository implements AuthenticatorRepository {
  constructor(private readonly db: PgDatabase) {}

  async get(id: string): Promise<Authenticator | undefined> {
    const row = await this.db.one<Row>(`SELECT * FROM authenticators WHERE id = ?`, [id]);
    return row && fromRow(row);
  }

  async getByUsername(username: string): Promise<UpdbAuthenticator | undefined> {
    const row = await this.db.one<Row>(
      `SELECT * FROM authenticators WHERE username = ? AND method = 'updb'`,
      [username],
    );
    return row && (fromRow(row) as UpdbAuthenticator);
  }

  async getByFingerprint(fingerprint: string): Promise<CertAuthenticator | undefined> {
    const row = await this.db.one<Row>(
      `SELECT * FROM authenticators WHERE cert_fingerprint = ? AND method = 'cert'`,
      [fingerprint],
    );
    return row && (fromRow(row) as CertAuthenticator);
  }

  async hasCertAuthenticators(): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM authenticators WHERE method = 'cert' LIMIT 1`)) !== undefined;
  }

  /** In the order they were created (SQLite answers in insertion order, which it does not state). */
  async listByIdentity(identityId: string): Promise<Authenticator[]> {
    const rows = await this.db.rows<Row>(
      `SELECT * FROM authenticators WHERE identity_id = ? ORDER BY created_at, id`,
      [identityId],
    );
    return rows.map(fromRow);
  }

  async listByIdentities(identityIds: readonly string[]): Promise<Authenticator[]> {
    if (identityIds.length === 0) return [];
    const rows = await this.db.rows<Row>(
      `SELECT * FROM authenticators WHERE identity_id = ANY(?::text[]) ORDER BY identity_id, created_at, id`,
      [identityIds],
    );
    return rows.map(fromRow);
  }

  async list(query: ListQuery): Promise<Page<Authenticator>> {
    // The count and the page in one statement: one snapshot, one round trip. An empty page still has its
    // count row (the page's columns are NULL then).
    const compiled = compileFilter(query.filter ?? '', AUTHENTICATOR_FILTER_FIELDS, 'postgres');
    const where = compiled.where ? `WHERE ${compiled.where}` : '';
    const limit = Math.min(compiled.limit ?? query.limit, MAX_LIMIT);
    const offset = compiled.offset ?? query.offset;
    const rows = await this.db.rows<PageRow>(
      `SELECT total.n AS total, page.* FROM (SELECT count(*) AS n FROM authenticators ${where}) total
       LEFT JOIN LATERAL (SELECT * FROM authenticators ${where}
         ORDER BY ${authenticatorOrder(compiled.orderBy)} LIMIT ? OFFSET ?) page ON true`,
      [...compiled.params, ...compiled.params, limit, offset],
    );
    return {
      items: rows.filter(onPage).map(fromRow),
      totalCount: Number(rows[0]?.total ?? 0),
      limit,
      offset,
    };
  }

  async create(a: Authenticator): Promise<void> {
    await this.keyedWrite(a, () =>
      this.db.run(
        `INSERT INTO authenticators (id, identity_id, method, username, password_hash, cert_fingerprint, cert_pem,
           created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          a.id,
          a.identityId,
          a.method,
          username(a),
          passwordHash(a),
          a.method === 'cert' ? a.fingerprint : null,
          a.method === 'cert' ? a.certPem : null,
          a.createdAt.toISOString(),
          a.updatedAt.toISOString(),
        ],
      ),
    );
  }

  async update(a: Authenticator): Promise<boolean> {
    const changed = await this.keyedWrite(a, () =>
      this.db.run(`UPDATE authenticators SET username = ?, password_hash = ?, updated_at = ? WHERE id = ?`, [
        username(a),
        passwordHash(a),
        a.updatedAt.toISOString(),
        a.id,
      ]),
    );
    if (changed > 0) return true;
    // SQLite checks the username before looking for the row: a missing authenticator given a taken username
    // is a UniqueViolation there, not false.
    if (a.method === 'updb') {
      const other = await this.getByUsername(a.username);
      if (other && other.id !== a.id) throw new UniqueViolation('username', a.username);
    }
    return false;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM authenticators WHERE id = ?`, [id])) > 0;
  }

  async deleteByIdentity(identityId: string): Promise<void> {
    await this.db.run(`DELETE FROM authenticators WHERE identity_id = ?`, [identityId]);
  }

  /**
   * A write that may break a unique key. Inside a transaction it runs in a savepoint: a failed statement
   * aborts a whole PostgreSQL transaction, whereas SQLite's repository throws before writing and its caller
   * may catch the UniqueViolation and carry on in the same transaction.
   */
  private async keyedWrite<T>(a: Authenticator, write: () => Promise<T>): Promise<T> {
    try {
      return await (this.db.inTransaction() ? this.db.transaction(write) : write());
    } catch (err) {
      throw uniqueViolationOf(err, a) ?? err;
    }
  }
}
