/**
 * Identity enrollments in PostgreSQL: the same answers as SQLite's repository
 * (store/sqlite/enrollment-repository.ts), whose interface comment says what "outstanding" means.
 *
 * Every check-and-set is one statement, as several controllers share the table under READ COMMITTED: a
 * redemption spends the token only if the row still holds that token, unexpired and unused, so of two racing
 * redemptions the second waits for the first's row lock, re-reads the row and matches nothing. The partial
 * unique index on pending usernames decides a username conflict, not a read before the write.
 */
import type { Enrollment } from '../../model.js';
import { enrollmentOf, type EnrollmentRow } from '../rows/enrollment-rows.js';
import { UniqueViolation, type EnrollmentRepository, type ListQuery, type Page } from '../repository.js';
import type { PgDatabase } from './pg-database.js';

type Row = EnrollmentRow;
const fromRow = enrollmentOf;

/** A row of a list query: the total, and the page's columns (NULL when the page is empty). */
type PageRow = { total: string } & (Row | { id: null });
const onPage = (r: PageRow): r is { total: string } & Row => r.id !== null;

const OUTSTANDING = `used_at IS NULL`;

/** The unique index that keeps two pending enrollments from promising one username (migrations/001-initial.ts). */
const PENDING_USERNAME_KEY = 'enrollments_pending_username';

const isPendingUsernameTaken = (err: unknown) => {
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  return code === '23505' && constraint === PENDING_USERNAME_KEY;
};

export class PgEnrollmentRepository implements EnrollmentRepository {
  constructor(private readonly db: PgDatabase) {}

  async get(id: string): Promise<Enrollment | undefined> {
    const row = await this.db.one<Row>(`SELECT * FROM enrollments WHERE id = ? AND ${OUTSTANDING}`, [id]);
    return row && fromRow(row);
  }

  async getByTokenHash(tokenHash: string): Promise<Enrollment | undefined> {
    const row = await this.db.one<Row>(`SELECT * FROM enrollments WHERE token_hash = ?`, [tokenHash]);
    return row && fromRow(row);
  }

  async listOutstanding(query: ListQuery & { identityId?: string }): Promise<Page<Enrollment>> {
    const byIdentity = query.identityId !== undefined;
    const where = byIdentity ? `${OUTSTANDING} AND identity_id = ?` : OUTSTANDING;
    const filter = byIdentity ? [query.identityId] : [];
    // The count and the page in one statement: one snapshot, one round trip; an empty page still has its
    // count row (the page's columns are NULL then).
    const rows = await this.db.rows<PageRow>(
      `SELECT total.n AS total, page.* FROM (SELECT count(*) AS n FROM enrollments WHERE ${where}) total
       LEFT JOIN LATERAL (SELECT * FROM enrollments WHERE ${where}
         ORDER BY created_at, id LIMIT ? OFFSET ?) page ON true`,
      [...filter, ...filter, query.limit, query.offset],
    );
    return { items: rows.filter(onPage).map(fromRow), totalCount: Number(rows[0]?.total ?? 0) };
  }

  async listOutstandingByIdentities(
    identityIds: readonly string[],
    perIdentity: number,
  ): Promise<Enrollment[]> {
    if (identityIds.length === 0) return [];
    // Each identity's first `perIdentity` in listOutstanding's order (created_at, id), numbered per identity.
    const rows = await this.db.rows<Row>(
      `SELECT * FROM (
         SELECT *, row_number() OVER (PARTITION BY identity_id ORDER BY created_at, id) AS nth FROM enrollments
         WHERE ${OUTSTANDING} AND identity_id = ANY(?::text[])) numbered
       WHERE nth <= ? ORDER BY identity_id, created_at, id`,
      [identityIds, perIdentity],
    );
    return rows.map(fromRow);
  }

  async pendingWithUsername(username: string): Promise<Enrollment | undefined> {
    const row = await this.db.one<Row>(`SELECT * FROM enrollments WHERE username = ? AND ${OUTSTANDING}`, [
      username,
    ]);
    return row && fromRow(row);
  }

  async create(e: Enrollment): Promise<void> {
    const insert = () =>
      this.db.run(
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
      );
    try {
      // In a savepoint inside a transaction: a failed statement aborts a whole PostgreSQL transaction, while
      // SQLite's repository throws before writing and its caller may catch the UniqueViolation and carry on.
      await (this.db.inTransaction() ? this.db.transaction(insert) : insert());
    } catch (err) {
      if (isPendingUsernameTaken(err) && e.username !== null)
        throw new UniqueViolation('username', e.username);
      throw err;
    }
  }

  async update(e: Enrollment): Promise<boolean> {
    const changed = await this.db.run(
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

  async markUsed(redeemed: Pick<Enrollment, 'id' | 'tokenHash'>, at: Date): Promise<boolean> {
    // The token redeemed must still be this enrollment's and unexpired when it is spent: a refresh or the
    // expiry may land while a redemption hashes its password. Matching the id and the token hash also means a
    // token can only ever spend the very enrollment it was issued for.
    const iso = at.toISOString();
    const changed = await this.db.run(
      `UPDATE enrollments SET used_at = ?, updated_at = ?
       WHERE id = ? AND token_hash = ? AND expires_at > ? AND ${OUTSTANDING}`,
      [iso, iso, redeemed.id, redeemed.tokenHash, iso],
    );
    return changed > 0;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run(`DELETE FROM enrollments WHERE id = ? AND ${OUTSTANDING}`, [id])) > 0;
  }
}
