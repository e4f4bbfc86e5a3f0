/**
 * MFA enrollments, recovery codes and the MFA audit log, one code for both databases (store/sql/statement.ts).
 * Secrets and codes arrive sealed (SQLite blobs, PostgreSQL bytea: Buffers both ways).
 *
 * Single use holds across controllers sharing the database because each check-and-set is one statement under
 * READ COMMITTED: `UPDATE … WHERE <what the caller expects>`. Of two racing updates the second waits for the
 * first's row lock, then re-checks its WHERE against the row as committed and matches nothing.
 *
 * `markVerified` and `advanceStep` match the enrollment the caller judged the code against by its id, not only
 * its identity. Between the caller's `get` and its update, another controller could remove the enrollment and
 * start a new one for the same identity (unverified, no step yet); matched by identity alone, a code of the old
 * secret would then verify the new enrollment or advance its step. A new enrollment always gets a new id, so
 * the update matches nothing and answers false. Recovery codes have no such gap: `consumeRecoveryCode` names
 * the code by its id, a random UUID that a new enrollment's codes do not reuse.
 *
 * is_verified is written and tested as a boolean (`true`, `NOT is_verified`), which SQLite reads as 1/0 and
 * answers as a number; counts are cast to INTEGER (PostgreSQL's count is int8, a string otherwise).
 */
import type { Page } from '../page.js';
import type {
  MfaAuditEvent,
  MfaAuditFilter,
  MfaAuditQuery,
  MfaEnrollment,
  SealedRecoveryCode,
} from '../mfa-repository.js';
import { AUDIT_COLUMNS, auditOf, enrollmentOf, type AuditRow, type EnrollmentRow } from '../rows/mfa-rows.js';
import type { Dialect } from '../sql/dialect.js';
import { pageWithTotal } from '../sql/paged.js';
import { atomic, one, rows, run, type Sql } from '../sql/statement.js';

/** The MFA history kept per identity: the newest this many events (older ones are dropped as new ones come). */
export const MAX_AUDIT_PER_IDENTITY = 1000;

type CodeRow = { id: string; code: Buffer; used_at: string | null };

export class MfaQueries {
  /** the order codes were written in: SQLite's rowid (migration 3), PostgreSQL's seq column (it has no rowid) */
  private readonly codeOrder: string;

  constructor(private readonly dialect: Dialect) {
    this.codeOrder = dialect.name === 'sqlite' ? 'rowid' : 'seq';
  }

  *get(identityId: string): Sql<MfaEnrollment | undefined> {
    const row = yield* one<EnrollmentRow>(`SELECT * FROM mfa_enrollments WHERE identity_id = ?`, [
      identityId,
    ]);
    return row && enrollmentOf(row);
  }

  *sample(): Sql<MfaEnrollment | undefined> {
    const row = yield* one<EnrollmentRow>(`SELECT * FROM mfa_enrollments LIMIT 1`);
    return row && enrollmentOf(row);
  }

  *isVerified(identityId: string): Sql<boolean> {
    const row = yield* one(`SELECT 1 FROM mfa_enrollments WHERE identity_id = ? AND is_verified`, [
      identityId,
    ]);
    return row !== undefined;
  }

  *verifiedAmong(identityIds: readonly string[]): Sql<Set<string>> {
    if (identityIds.length === 0) return new Set();
    const asked = this.dialect.oneOf('identity_id', identityIds);
    const found = yield* rows<{ identity_id: string }>(
      `SELECT identity_id FROM mfa_enrollments WHERE is_verified AND ${asked.sql}`,
      asked.params,
    );
    return new Set(found.map((r) => r.identity_id));
  }

  *countVerified(): Sql<number> {
    const row = yield* one<{ n: number }>(
      `SELECT CAST(count(*) AS INTEGER) AS n FROM mfa_enrollments WHERE is_verified`,
    );
    return Number(row!.n);
  }

  /**
   * All or nothing: the codes are written only with the enrollment, and of two controllers enrolling one
   * identity at once the second waits for the first's key, then inserts nothing and answers false.
   */
  *create(e: MfaEnrollment, codes: readonly SealedRecoveryCode[]): Sql<boolean> {
    const at = e.createdAt.toISOString();
    return yield* atomic(
      function* (this: MfaQueries) {
        const created = yield* run(
          `INSERT INTO mfa_enrollments (identity_id, id, is_verified, secret, last_step, created_at, updated_at,
           verified_at, started_by)
         VALUES (?, ?, false, ?, NULL, ?, ?, NULL, ?) ON CONFLICT (identity_id) DO NOTHING`,
          [e.identityId, e.id, e.sealedSecret, at, at, e.startedBy],
        );
        if (created === 0) return false;
        yield* this.insertCodes(e.identityId, codes);
        return true;
      }.bind(this),
    );
  }

  *markVerified(judged: Pick<MfaEnrollment, 'identityId' | 'id'>, step: number, at: Date): Sql<boolean> {
    const iso = at.toISOString();
    const changed = yield* run(
      `UPDATE mfa_enrollments SET is_verified = true, last_step = ?, verified_at = ?, updated_at = ?
       WHERE identity_id = ? AND id = ? AND NOT is_verified AND (last_step IS NULL OR last_step < ?)`,
      [step, iso, iso, judged.identityId, judged.id, step],
    );
    return changed === 1;
  }

  *advanceStep(judged: Pick<MfaEnrollment, 'identityId' | 'id'>, step: number, at: Date): Sql<boolean> {
    const changed = yield* run(
      `UPDATE mfa_enrollments SET last_step = ?, updated_at = ?
       WHERE identity_id = ? AND id = ? AND (last_step IS NULL OR last_step < ?)`,
      [step, at.toISOString(), judged.identityId, judged.id, step],
    );
    return changed === 1;
  }

  *delete(identityId: string): Sql<boolean> {
    // The codes go with the enrollment (ON DELETE CASCADE).
    return (yield* run(`DELETE FROM mfa_enrollments WHERE identity_id = ?`, [identityId])) > 0;
  }

  *recoveryCodes(identityId: string, includeUsed = false): Sql<SealedRecoveryCode[]> {
    const found = yield* rows<CodeRow>(
      `SELECT id, code, used_at FROM mfa_recovery_codes
       WHERE identity_id = ? ${includeUsed ? '' : 'AND used_at IS NULL'} ORDER BY ${this.codeOrder}`,
      [identityId],
    );
    return found.map((r) => ({ id: r.id, sealed: r.code, used: r.used_at !== null }));
  }

  *countRecoveryCodes(identityId: string): Sql<number> {
    const row = yield* one<{ n: number }>(
      `SELECT CAST(count(*) AS INTEGER) AS n FROM mfa_recovery_codes WHERE identity_id = ? AND used_at IS NULL`,
      [identityId],
    );
    return Number(row!.n);
  }

  *consumeRecoveryCode(identityId: string, codeId: string): Sql<boolean> {
    const changed = yield* run(
      `UPDATE mfa_recovery_codes SET used_at = ? WHERE identity_id = ? AND id = ? AND used_at IS NULL`,
      [new Date().toISOString(), identityId, codeId],
    );
    return changed === 1;
  }

  *replaceRecoveryCodes(identityId: string, codes: readonly SealedRecoveryCode[]): Sql<void> {
    // Two statements rather than one: the parts of one PostgreSQL query run in no set order, so a new code
    // could meet an old row with its id before the DELETE had removed it.
    yield* atomic(
      function* (this: MfaQueries) {
        yield* run(`DELETE FROM mfa_recovery_codes WHERE identity_id = ?`, [identityId]);
        yield* this.insertCodes(identityId, codes);
      }.bind(this),
    );
  }

  *recordAudit(e: MfaAuditEvent): Sql<void> {
    yield* run(
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
    yield* run(
      `DELETE FROM mfa_audit_events WHERE identity_id = ? AND seq <= (
         SELECT seq FROM mfa_audit_events WHERE identity_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      [e.identityId, e.identityId, MAX_AUDIT_PER_IDENTITY],
    );
  }

  /** Newest first. */
  *listAudit(query: MfaAuditQuery): Sql<Page<MfaAuditEvent>> {
    const clauses: string[] = [];
    const values: string[] = [];
    for (const [field, column] of Object.entries(AUDIT_COLUMNS) as [keyof MfaAuditFilter, string][]) {
      const value = query[field];
      if (value === undefined) continue;
      clauses.push(`mfa_audit_events.${column} = ?`);
      values.push(value);
    }
    const page = yield* pageWithTotal<AuditRow>(
      'mfa_audit_events',
      'mfa_audit_events.*',
      { sql: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params: values },
      'mfa_audit_events.seq DESC',
      query.limit,
      query.offset,
    );
    return { items: page.rows.map(auditOf), totalCount: page.total };
  }

  /** One identity's codes in one statement, written in their order (what `recoveryCodes` reads them back in). */
  private *insertCodes(identityId: string, codes: readonly SealedRecoveryCode[]): Sql<void> {
    if (codes.length === 0) return;
    const given = this.dialect.relation(
      'c',
      ['n', 'id', 'code'],
      codes.map((c, n) => [n, c.id, c.sealed.toString('hex')]),
    );
    yield* run(
      `INSERT INTO mfa_recovery_codes (id, identity_id, code)
       SELECT c.id, ?, ${this.dialect.blobFromHex('c.code')} FROM ${given.sql} ORDER BY CAST(c.n AS INTEGER)`,
      [identityId, ...given.params],
    );
  }
}
