/**
 * MFA enrollments, recovery codes and the MFA audit log in PostgreSQL: the same answers as SQLite's repository
 * (store/sqlite/mfa-repository.ts). Secrets and codes arrive sealed and are stored as bytea (Buffers both ways).
 *
 * Single use holds across controllers sharing the database because each check-and-set is one statement under
 * READ COMMITTED: `UPDATE … WHERE <what the caller expects>`. Of two racing updates the second waits for the
 * first's row lock, then re-checks its WHERE against the row as committed and matches nothing.
 *
 * `markVerified` and `advanceStep` match the enrollment the caller judged the code against by its id, not only
 * its identity. Between the caller's `get` and its update, another controller could remove the enrollment and
 * start a new one for the same identity (unverified, no step yet); matched by identity alone, a code of the old
 * secret would then verify the new enrollment or advance its step. A new enrollment always gets a new id, so
 * the update matches nothing and answers false. (SQLite runs the caller's whole transaction, read, judge and
 * update, under its write lock, where this cannot happen; it matches the id all the same.) Recovery codes have
 * no such gap: `consumeRecoveryCode` names the code by its id, a random UUID that a new enrollment's codes do
 * not reuse.
 */
import type { Page } from '../page.js';
import type {
  MfaAuditEvent,
  MfaAuditFilter,
  MfaAuditQuery,
  MfaEnrollment,
  MfaRepository,
  SealedRecoveryCode,
} from '../mfa-repository.js';
import { MAX_AUDIT_PER_IDENTITY } from '../sqlite/mfa-repository.js';
import type { PgDatabase } from './pg-database.js';
import {
  AUDIT_COLUMNS,
  auditOf,
  enrollmentOf as enrollmentFromRow,
  type AuditRow,
  type EnrollmentRow as EnrollmentRowOf,
} from '../rows/mfa-rows.js';

/** PostgreSQL answers is_verified as a boolean and last_step, a bigint, as a string (node-postgres's int8). */
type EnrollmentRow = EnrollmentRowOf<boolean, string>;

const enrollmentOf = (r: EnrollmentRow): MfaEnrollment => enrollmentFromRow(r, (flag) => flag, Number);

/** A row of the audit list: the total, and the page's columns (NULL when the page is empty). */
type AuditPageRow = { total: string } & (AuditRow | { id: null });
const onPage = (r: AuditPageRow): r is { total: string } & AuditRow => r.id !== null;

/**
 * Inserts one identity's codes from two parallel arrays, in array order: `seq` (what the codes are read back
 * in, as SQLite reads its rowid) is drawn row by row as the ordered rows are inserted.
 */
const INSERT_CODES = `
  INSERT INTO mfa_recovery_codes (id, identity_id, code)
  SELECT c.id, ?, c.code FROM unnest(?::text[], ?::bytea[]) WITH ORDINALITY AS c(id, code, n) ORDER BY c.n`;

const codeColumns = (codes: readonly SealedRecoveryCode[]) => [
  codes.map((c) => c.id),
  codes.map((c) => c.sealed),
];

export class PgMfaRepository implements MfaRepository {
  constructor(private readonly db: PgDatabase) {}

  async get(identityId: string): Promise<MfaEnrollment | undefined> {
    const row = await this.db.one<EnrollmentRow>(`SELECT * FROM mfa_enrollments WHERE identity_id = ?`, [
      identityId,
    ]);
    return row && enrollmentOf(row);
  }

  async sample(): Promise<MfaEnrollment | undefined> {
    const row = await this.db.one<EnrollmentRow>(`SELECT * FROM mfa_enrollments LIMIT 1`);
    return row && enrollmentOf(row);
  }

  async isVerified(identityId: string): Promise<boolean> {
    const row = await this.db.one(`SELECT 1 FROM mfa_enrollments WHERE identity_id = ? AND is_verified`, [
      identityId,
    ]);
    return row !== undefined;
  }

  async verifiedAmong(identityIds: readonly string[]): Promise<Set<string>> {
    if (identityIds.length === 0) return new Set();
    const rows = await this.db.rows<{ identity_id: string }>(
      `SELECT identity_id FROM mfa_enrollments WHERE is_verified AND identity_id = ANY(?::text[])`,
      [identityIds],
    );
    return new Set(rows.map((r) => r.identity_id));
  }

  async countVerified(): Promise<number> {
    const row = await this.db.one<{ n: string }>(
      `SELECT count(*) AS n FROM mfa_enrollments WHERE is_verified`,
    );
    return Number(row!.n);
  }

  async create(e: MfaEnrollment, codes: readonly SealedRecoveryCode[]): Promise<boolean> {
    // One statement, atomic without a transaction: the codes are written only if the enrollment was (they
    // read from its RETURNING), and of two controllers enrolling one identity at once the second waits for
    // the first's key, then inserts nothing. The codes' foreign key is checked at the end of the statement,
    // when the enrollment's row exists.
    const at = e.createdAt.toISOString();
    const row = await this.db.one<{ created: string }>(
      `WITH enrollment AS (
         INSERT INTO mfa_enrollments (identity_id, id, is_verified, secret, last_step, created_at, updated_at,
           verified_at, started_by)
         VALUES (?, ?, false, ?, NULL, ?, ?, NULL, ?) ON CONFLICT (identity_id) DO NOTHING RETURNING identity_id),
       codes AS (
         INSERT INTO mfa_recovery_codes (id, identity_id, code)
         SELECT c.id, enrollment.identity_id, c.code
         FROM enrollment, unnest(?::text[], ?::bytea[]) WITH ORDINALITY AS c(id, code, n) ORDER BY c.n)
       SELECT count(*) AS created FROM enrollment`,
      [e.identityId, e.id, e.sealedSecret, at, at, e.startedBy, ...codeColumns(codes)],
    );
    return row!.created === '1';
  }

  async markVerified(
    judged: Pick<MfaEnrollment, 'identityId' | 'id'>,
    step: number,
    at: Date,
  ): Promise<boolean> {
    const iso = at.toISOString();
    const changed = await this.db.run(
      `UPDATE mfa_enrollments SET is_verified = true, last_step = ?, verified_at = ?, updated_at = ?
       WHERE identity_id = ? AND id = ? AND NOT is_verified AND (last_step IS NULL OR last_step < ?)`,
      [step, iso, iso, judged.identityId, judged.id, step],
    );
    return changed === 1;
  }

  async advanceStep(
    judged: Pick<MfaEnrollment, 'identityId' | 'id'>,
    step: number,
    at: Date,
  ): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE mfa_enrollments SET last_step = ?, updated_at = ?
       WHERE identity_id = ? AND id = ? AND (last_step IS NULL OR last_step < ?)`,
      [step, at.toISOString(), judged.identityId, judged.id, step],
    );
    return changed === 1;
  }

  async delete(identityId: string): Promise<boolean> {
    // The codes go with the enrollment (ON DELETE CASCADE).
    return (await this.db.run(`DELETE FROM mfa_enrollments WHERE identity_id = ?`, [identityId])) > 0;
  }

  async recoveryCodes(identityId: string, includeUsed = false): Promise<SealedRecoveryCode[]> {
    const rows = await this.db.rows<{ id: string; code: Buffer; used_at: string | null }>(
      `SELECT id, code, used_at FROM mfa_recovery_codes
       WHERE identity_id = ? ${includeUsed ? '' : 'AND used_at IS NULL'} ORDER BY seq`,
      [identityId],
    );
    return rows.map((r) => ({ id: r.id, sealed: r.code, used: r.used_at !== null }));
  }

  async countRecoveryCodes(identityId: string): Promise<number> {
    const row = await this.db.one<{ n: string }>(
      `SELECT count(*) AS n FROM mfa_recovery_codes WHERE identity_id = ? AND used_at IS NULL`,
      [identityId],
    );
    return Number(row!.n);
  }

  async consumeRecoveryCode(identityId: string, codeId: string): Promise<boolean> {
    const changed = await this.db.run(
      `UPDATE mfa_recovery_codes SET used_at = ? WHERE identity_id = ? AND id = ? AND used_at IS NULL`,
      [new Date().toISOString(), identityId, codeId],
    );
    return changed === 1;
  }

  async replaceRecoveryCodes(identityId: string, codes: readonly SealedRecoveryCode[]): Promise<void> {
    // Two statements in a transaction rather than one: the parts of one query run in no set order, so a new
    // code could meet an old row with its id before the DELETE had removed it.
    await this.db.transaction(async () => {
      await this.db.run(`DELETE FROM mfa_recovery_codes WHERE identity_id = ?`, [identityId]);
      await this.db.run(INSERT_CODES, [identityId, ...codeColumns(codes)]);
    });
  }

  async recordAudit(e: MfaAuditEvent): Promise<void> {
    await this.db.run(
      `INSERT INTO mfa_audit_events (id, event_type, identity_id, api_session_id, actor_identity_id, source_ip,
         outcome, factor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        e.id,
        e.eventType,
        e.identityId,
        e.apiSessionId,
        e.actorIdentityId,
        e.sourceIp,
        e.outcome,
        e.factor,
        e.reason,
        e.at.toISOString(),
      ],
    );
    // Keeps the newest MAX_AUDIT_PER_IDENTITY rows of one identity (a user failing codes in a loop, or a
    // script, must not grow the table without end). A separate statement so that it sees the row just written.
    await this.db.run(
      `DELETE FROM mfa_audit_events WHERE identity_id = ? AND seq <= (
         SELECT seq FROM mfa_audit_events WHERE identity_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      [e.identityId, e.identityId, MAX_AUDIT_PER_IDENTITY],
    );
  }

  /** Newest first. */
  async listAudit(query: MfaAuditQuery): Promise<Page<MfaAuditEvent>> {
    const clauses: string[] = [];
    const values: string[] = [];
    for (const [field, column] of Object.entries(AUDIT_COLUMNS) as [keyof MfaAuditFilter, string][]) {
      const value = query[field];
      if (value === undefined) continue;
      clauses.push(`${column} = ?`);
      values.push(value);
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    // The count and the page in one statement: one snapshot, one round trip; an empty page still has its
    // count row (the page's columns are NULL then).
    const rows = await this.db.rows<AuditPageRow>(
      `SELECT total.n AS total, page.* FROM (SELECT count(*) AS n FROM mfa_audit_events ${where}) total
       LEFT JOIN LATERAL (SELECT * FROM mfa_audit_events ${where} ORDER BY seq DESC LIMIT ? OFFSET ?) page ON true`,
      [...values, ...values, query.limit, query.offset],
    );
    return { items: rows.filter(onPage).map(auditOf), totalCount: Number(rows[0]?.total ?? 0) };
  }
}
