/**
 * Identity enrollments, one code for both databases (store/sql/statement.ts). "Outstanding" means not yet
 * used (expired ones included: an administrator refreshes them); used ones are kept only to answer their
 * token with "already used".
 *
 * Every check-and-set is one statement, as several controllers may share the table under PostgreSQL's READ
 * COMMITTED: a redemption spends the token only if the row still holds that token, unexpired and unused, so of
 * two racing redemptions the second waits for the first's row lock, re-reads the row and matches nothing. The
 * partial unique index on pending usernames decides a username conflict, not a read before the write.
 */
import type { Enrollment } from '../../model.js';
import { enrollmentOf, type EnrollmentRow } from '../rows/enrollment-rows.js';
import { UniqueViolation, type ListQuery, type Page } from '../repository.js';
import type { Dialect, UniqueKey } from '../sql/dialect.js';
import { pageWithTotal } from '../sql/paged.js';
import { guarded, one, rows, run, type Sql } from '../sql/statement.js';

const OUTSTANDING = `enrollments.used_at IS NULL`;

/** The unique index that keeps two pending enrollments from promising one username (SQLite 9, PostgreSQL 1). */
const PENDING_USERNAME: UniqueKey = {
  index: 'enrollments_pending_username',
  columns: 'enrollments.username',
};

export class EnrollmentQueries {
  constructor(private readonly dialect: Dialect) {}

  /** an outstanding enrollment; a used one is not found */
  *get(id: string): Sql<Enrollment | undefined> {
    const row = yield* one<EnrollmentRow>(`SELECT * FROM enrollments WHERE id = ? AND ${OUTSTANDING}`, [id]);
    return row && enrollmentOf(row);
  }

  /** any enrollment, used or not, with this token hash */
  *getByTokenHash(tokenHash: string): Sql<Enrollment | undefined> {
    const row = yield* one<EnrollmentRow>(`SELECT * FROM enrollments WHERE token_hash = ?`, [tokenHash]);
    return row && enrollmentOf(row);
  }

  *listOutstanding(query: ListQuery & { identityId?: string }): Sql<Page<Enrollment>> {
    const byIdentity = query.identityId !== undefined;
    const where = byIdentity
      ? { sql: `WHERE ${OUTSTANDING} AND enrollments.identity_id = ?`, params: [query.identityId] }
      : { sql: `WHERE ${OUTSTANDING}`, params: [] };
    const page = yield* pageWithTotal<EnrollmentRow>(
      'enrollments',
      'enrollments.*',
      where,
      'enrollments.created_at, enrollments.id',
      query.limit,
      query.offset,
    );
    return { items: page.rows.map(enrollmentOf), totalCount: page.total };
  }

  /**
   * The outstanding enrollments of these identities in one read (for a page of identities): by identity id,
   * and of each identity the first `perIdentity` that `listOutstanding` with its `identityId` answers, in
   * that order. None, without a read, for an empty list.
   */
  *listOutstandingByIdentities(identityIds: readonly string[], perIdentity: number): Sql<Enrollment[]> {
    if (identityIds.length === 0) return [];
    const asked = this.dialect.oneOf('identity_id', identityIds);
    // Each identity's first `perIdentity` in listOutstanding's order (created_at, id), numbered per identity.
    const found = yield* rows<EnrollmentRow>(
      `SELECT * FROM (
         SELECT *, row_number() OVER (PARTITION BY identity_id ORDER BY created_at, id) AS nth FROM enrollments
         WHERE ${OUTSTANDING} AND ${asked.sql}) numbered
       WHERE nth <= ? ORDER BY identity_id, created_at, id`,
      [...asked.params, perIdentity],
    );
    return found.map(enrollmentOf);
  }

  /** the outstanding `updb` enrollment that promises this username, if any */
  *pendingWithUsername(username: string): Sql<Enrollment | undefined> {
    const row = yield* one<EnrollmentRow>(`SELECT * FROM enrollments WHERE username = ? AND ${OUTSTANDING}`, [
      username,
    ]);
    return row && enrollmentOf(row);
  }

  /** throws UniqueViolation('username') when a pending enrollment already promises the username */
  *create(e: Enrollment): Sql<void> {
    try {
      // guarded: inside a transaction the refused insert undoes only itself, and the caller may carry on
      yield* guarded(() =>
        run(
          `INSERT INTO enrollments (id, identity_id, method, username, token_hash, nonce, issued_at, expires_at,
             used_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            e.id,
            e.identityId,
            e.method,
            e.username,
            e.tokenHash,
            e.nonce,
            e.issuedAt.toISOString(),
            e.expiresAt.toISOString(),
            e.usedAt?.toISOString() ?? null,
            e.createdAt.toISOString(),
            e.updatedAt.toISOString(),
          ],
        ),
      );
    } catch (err) {
      if (e.username !== null && this.dialect.violated(err, [PENDING_USERNAME]))
        throw new UniqueViolation('username', e.username);
      throw err;
    }
  }

  /** a refresh: new nonce, token hash, issue and expiry times; false when not outstanding */
  *update(e: Enrollment): Sql<boolean> {
    const changed = yield* run(
      `UPDATE enrollments SET token_hash = ?, nonce = ?, issued_at = ?, expires_at = ?, updated_at = ?
       WHERE id = ? AND ${OUTSTANDING}`,
      [
        e.tokenHash,
        e.nonce,
        e.issuedAt.toISOString(),
        e.expiresAt.toISOString(),
        e.updatedAt.toISOString(),
        e.id,
      ],
    );
    return changed > 0;
  }

  /** spends the token: false when it was used, refreshed or expired meanwhile (of two redemptions, one wins) */
  *markUsed(redeemed: Pick<Enrollment, 'id' | 'tokenHash'>, at: Date): Sql<boolean> {
    // The token redeemed must still be this enrollment's and unexpired when it is spent: a refresh or the
    // expiry may land while a redemption hashes its password. Matching the id and the token hash also means a
    // token can only ever spend the very enrollment it was issued for.
    const iso = at.toISOString();
    const changed = yield* run(
      `UPDATE enrollments SET used_at = ?, updated_at = ?
       WHERE id = ? AND token_hash = ? AND expires_at > ? AND ${OUTSTANDING}`,
      [iso, iso, redeemed.id, redeemed.tokenHash, iso],
    );
    return changed > 0;
  }

  *delete(id: string): Sql<boolean> {
    return (yield* run(`DELETE FROM enrollments WHERE id = ? AND ${OUTSTANDING}`, [id])) > 0;
  }
}
