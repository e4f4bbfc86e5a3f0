import type { Db } from '../database.js';
import type { Enrollment } from '../../model.js';
import { enrollmentOf, type EnrollmentRow } from '../rows/enrollment-rows.js';
import { UniqueViolation, type SyncEnrollmentRepository, type ListQuery, type Page } from '../repository.js';

type Row = EnrollmentRow;
const fromRow = enrollmentOf;

const toParams = (e: Enrollment) => ({
  id: e.id,
  identity_id: e.identityId,
  method: e.method,
  username: e.username,
  token_hash: e.tokenHash,
  nonce: e.nonce,
  issued_at: e.issuedAt.toISOString(),
  expires_at: e.expiresAt.toISOString(),
  used_at: e.usedAt?.toISOString() ?? null,
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
});

const OUTSTANDING = `used_at IS NULL`;

export class SqliteEnrollmentRepository implements SyncEnrollmentRepository {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      get: db.prepare(`SELECT * FROM enrollments WHERE id = ? AND ${OUTSTANDING}`),
      byToken: db.prepare(`SELECT * FROM enrollments WHERE token_hash = ?`),
      byUsername: db.prepare(`SELECT * FROM enrollments WHERE username = ? AND ${OUTSTANDING}`),
      // Each identity's first `perIdentity` in listOutstanding's order (created_at, id), numbered per identity.
      outstandingByIdentities: db.prepare(
        `SELECT * FROM (
           SELECT *, row_number() OVER (PARTITION BY identity_id ORDER BY created_at, id) AS nth FROM enrollments
           WHERE ${OUTSTANDING} AND identity_id IN (SELECT value FROM json_each(@identityIds)))
         WHERE nth <= @perIdentity ORDER BY identity_id, created_at, id`,
      ),
      insert: db.prepare(
        `INSERT INTO enrollments (id, identity_id, method, username, token_hash, nonce, issued_at, expires_at,
           used_at, created_at, updated_at)
         VALUES (@id, @identity_id, @method, @username, @token_hash, @nonce, @issued_at, @expires_at, @used_at,
           @created_at, @updated_at)`,
      ),
      update: db.prepare(
        `UPDATE enrollments SET token_hash = @token_hash, nonce = @nonce, issued_at = @issued_at,
           expires_at = @expires_at, updated_at = @updated_at WHERE id = @id AND ${OUTSTANDING}`,
      ),
      // The token redeemed must still be this enrollment's and unexpired when it is spent: a refresh or
      // the expiry may land while a redemption hashes its password.
      markUsed: db.prepare(
        `UPDATE enrollments SET used_at = @at, updated_at = @at
         WHERE id = @id AND token_hash = @tokenHash AND expires_at > @at AND ${OUTSTANDING}`,
      ),
      delete: db.prepare(`DELETE FROM enrollments WHERE id = ? AND ${OUTSTANDING}`),
    };
  }

  get(id: string): Enrollment | undefined {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && fromRow(row);
  }

  getByTokenHash(tokenHash: string): Enrollment | undefined {
    const row = this.stmts.byToken.get(tokenHash) as Row | undefined;
    return row && fromRow(row);
  }

  listOutstanding(query: ListQuery & { identityId?: string }): Page<Enrollment> {
    const where =
      query.identityId === undefined ? OUTSTANDING : `${OUTSTANDING} AND identity_id = @identityId`;
    const params = { identityId: query.identityId, limit: query.limit, offset: query.offset };
    const total = this.db.prepare(`SELECT COUNT(*) AS n FROM enrollments WHERE ${where}`).get(params) as {
      n: number;
    };
    const rows = this.db
      .prepare(`SELECT * FROM enrollments WHERE ${where} ORDER BY created_at, id LIMIT @limit OFFSET @offset`)
      .all(params) as Row[];
    return { items: rows.map(fromRow), totalCount: total.n };
  }

  listOutstandingByIdentities(identityIds: readonly string[], perIdentity: number): Enrollment[] {
    if (identityIds.length === 0) return [];
    return (
      this.stmts.outstandingByIdentities.all({
        identityIds: JSON.stringify(identityIds),
        perIdentity,
      }) as Row[]
    ).map(fromRow);
  }

  pendingWithUsername(username: string): Enrollment | undefined {
    const row = this.stmts.byUsername.get(username) as Row | undefined;
    return row && fromRow(row);
  }

  create(e: Enrollment): void {
    if (e.username !== null && this.pendingWithUsername(e.username))
      throw new UniqueViolation('username', e.username);
    this.stmts.insert.run(toParams(e));
  }

  update(e: Enrollment): boolean {
    return this.stmts.update.run(toParams(e)).changes > 0;
  }

  markUsed(redeemed: Pick<Enrollment, 'id' | 'tokenHash'>, at: Date): boolean {
    const { id, tokenHash } = redeemed;
    return this.stmts.markUsed.run({ id, tokenHash, at: at.toISOString() }).changes > 0;
  }

  delete(id: string): boolean {
    return this.stmts.delete.run(id).changes > 0;
  }
}
