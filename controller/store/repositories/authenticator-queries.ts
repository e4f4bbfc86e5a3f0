/**
 * Authenticators, one code for both databases (store/sql/statement.ts). No cache: several controllers may
 * share the table.
 *
 * The unique keys decide a taken username or fingerprint, not a read before the write (another controller may
 * take the username between the two), and their violation becomes UniqueViolation. The write runs `atomic`,
 * so inside a transaction the refused statement undoes only itself and the caller may catch and carry on.
 */
import type { Authenticator, CertAuthenticator, UpdbAuthenticator } from '../../model.js';
import { UniqueViolation, type ListQuery, type Page } from '../repository.js';
import { compileFilter } from '../filter/index.js';
import { MAX_LIMIT } from '../page.js';
import { AUTHENTICATOR_FILTER_FIELDS, authenticatorOrder } from '../authenticator-filter.js';
import { authenticatorOf as fromRow, type AuthenticatorRow as Row } from '../rows/authenticator-rows.js';
import type { Dialect, UniqueKey } from '../sql/dialect.js';
import { pageWithTotal } from '../sql/paged.js';
import { guarded, one, rows, run, type Sql } from '../sql/statement.js';

/** The unique keys a write may break (SQLite: a column's UNIQUE, then migration 9's index), by field. */
const USERNAME: UniqueKey = { index: 'authenticators_username_key', columns: 'authenticators.username' };
const FINGERPRINT: UniqueKey = {
  index: 'authenticators_by_fingerprint',
  columns: 'authenticators.cert_fingerprint',
};

const username = (a: Authenticator) => (a.method === 'updb' ? a.username : null);
const passwordHash = (a: Authenticator) => (a.method === 'updb' ? a.passwordHash : null);

/** In the order they were created, ties by id: `listByIdentity` and `listByIdentities` alike. */
const CREATION_ORDER = 'created_at, id';

export class AuthenticatorQueries {
  constructor(private readonly dialect: Dialect) {}

  *get(id: string): Sql<Authenticator | undefined> {
    const row = yield* one<Row>(`SELECT * FROM authenticators WHERE id = ?`, [id]);
    return row && fromRow(row);
  }

  *getByUsername(name: string): Sql<UpdbAuthenticator | undefined> {
    const row = yield* one<Row>(`SELECT * FROM authenticators WHERE username = ? AND method = 'updb'`, [
      name,
    ]);
    return row && (fromRow(row) as UpdbAuthenticator);
  }

  *getByFingerprint(fingerprint: string): Sql<CertAuthenticator | undefined> {
    const row = yield* one<Row>(
      `SELECT * FROM authenticators WHERE cert_fingerprint = ? AND method = 'cert'`,
      [fingerprint],
    );
    return row && (fromRow(row) as CertAuthenticator);
  }

  *hasCertAuthenticators(): Sql<boolean> {
    return (yield* one(`SELECT 1 FROM authenticators WHERE method = 'cert' LIMIT 1`)) !== undefined;
  }

  *listByIdentity(identityId: string): Sql<Authenticator[]> {
    const found = yield* rows<Row>(
      `SELECT * FROM authenticators WHERE identity_id = ? ORDER BY ${CREATION_ORDER}`,
      [identityId],
    );
    return found.map(fromRow);
  }

  *listByIdentities(identityIds: readonly string[]): Sql<Authenticator[]> {
    if (identityIds.length === 0) return [];
    const asked = this.dialect.oneOf('identity_id', identityIds);
    const found = yield* rows<Row>(
      `SELECT * FROM authenticators WHERE ${asked.sql} ORDER BY identity_id, ${CREATION_ORDER}`,
      asked.params,
    );
    return found.map(fromRow);
  }

  *list(query: ListQuery): Sql<Page<Authenticator>> {
    const compiled = compileFilter(query.filter ?? '', AUTHENTICATOR_FILTER_FIELDS, this.dialect.name);
    const limit = Math.min(compiled.limit ?? query.limit, MAX_LIMIT);
    const offset = compiled.offset ?? query.offset;
    const page = yield* pageWithTotal<Row>(
      'authenticators',
      'authenticators.*',
      { sql: compiled.where ? `WHERE ${compiled.where}` : '', params: compiled.params },
      authenticatorOrder(compiled.orderBy),
      limit,
      offset,
    );
    return { items: page.rows.map(fromRow), totalCount: page.total, limit, offset };
  }

  /** throws UniqueViolation('username' | 'fingerprint') when another authenticator holds it */
  *create(a: Authenticator): Sql<void> {
    yield* this.keyedWrite(a, () =>
      run(
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

  /** false when there is no such authenticator; a taken username is UniqueViolation, even then */
  *update(a: Authenticator): Sql<boolean> {
    const changed = yield* this.keyedWrite(a, () =>
      run(`UPDATE authenticators SET username = ?, password_hash = ?, updated_at = ? WHERE id = ?`, [
        username(a),
        passwordHash(a),
        a.updatedAt.toISOString(),
        a.id,
      ]),
    );
    if (changed > 0) return true;
    // Nothing updated, so no key was checked: a missing authenticator given a taken username still answers
    // UniqueViolation (as the check before the write once did), read only on this rare path.
    if (a.method === 'updb') {
      const other = yield* this.getByUsername(a.username);
      if (other && other.id !== a.id) throw new UniqueViolation('username', a.username);
    }
    return false;
  }

  *delete(id: string): Sql<boolean> {
    return (yield* run(`DELETE FROM authenticators WHERE id = ?`, [id])) > 0;
  }

  *deleteByIdentity(identityId: string): Sql<void> {
    yield* run(`DELETE FROM authenticators WHERE identity_id = ?`, [identityId]);
  }

  /** A write that may break a unique key: its violation is UniqueViolation (a taken id stays a database error). */
  private *keyedWrite(a: Authenticator, write: () => Sql<number>): Sql<number> {
    try {
      return yield* guarded(write);
    } catch (err) {
      const key = this.dialect.violated(err, [USERNAME, FINGERPRINT]);
      if (key === USERNAME && a.method === 'updb') throw new UniqueViolation('username', a.username);
      if (key === FINGERPRINT && a.method === 'cert') throw new UniqueViolation('fingerprint', a.fingerprint);
      throw err;
    }
  }
}
