import type { Db } from '../database.js';
import type { Page } from '../page.js';
import type {
  MfaAuditEvent,
  MfaAuditFilter,
  MfaAuditQuery,
  MfaEnrollment,
  SyncMfaRepository,
  SealedRecoveryCode,
} from '../mfa-repository.js';
import {
  AUDIT_COLUMNS,
  auditOf,
  enrollmentOf as enrollmentFromRow,
  type AuditRow,
  type EnrollmentRow as EnrollmentRowOf,
} from '../rows/mfa-rows.js';

/** The MFA history kept per identity: the newest this many events (older ones are dropped as new ones come). */
export const MAX_AUDIT_PER_IDENTITY = 1000;

/** SQLite answers is_verified as 1/0 and last_step as a number. */
type EnrollmentRow = EnrollmentRowOf<number, number>;

const enrollmentOf = (r: EnrollmentRow): MfaEnrollment =>
  enrollmentFromRow(
    r,
    (flag) => flag === 1,
    (step) => step,
  );

export class SqliteMfaRepository implements SyncMfaRepository {
  private readonly stmts;

  constructor(readonly db: Db) {
    this.stmts = {
      get: db.prepare(`SELECT * FROM mfa_enrollments WHERE identity_id = ?`),
      sample: db.prepare(`SELECT * FROM mfa_enrollments LIMIT 1`),
      isVerified: db.prepare(`SELECT 1 FROM mfa_enrollments WHERE identity_id = ? AND is_verified = 1`),
      verifiedAmong: db.prepare(
        `SELECT identity_id FROM mfa_enrollments
         WHERE is_verified = 1 AND identity_id IN (SELECT value FROM json_each(?))`,
      ),
      countVerified: db.prepare(`SELECT COUNT(*) AS n FROM mfa_enrollments WHERE is_verified = 1`),
      insert: db.prepare(
        `INSERT INTO mfa_enrollments (identity_id, id, is_verified, secret, last_step, created_at, updated_at, verified_at, started_by)
         VALUES (?, ?, 0, ?, NULL, ?, ?, NULL, ?) ON CONFLICT (identity_id) DO NOTHING`,
      ),
      // Matched by id too: an enrollment removed and started again since it was judged is another one.
      markVerified: db.prepare(
        `UPDATE mfa_enrollments SET is_verified = 1, last_step = ?, verified_at = ?, updated_at = ?
         WHERE identity_id = ? AND id = ? AND is_verified = 0 AND (last_step IS NULL OR last_step < ?)`,
      ),
      advanceStep: db.prepare(
        `UPDATE mfa_enrollments SET last_step = ?, updated_at = ?
         WHERE identity_id = ? AND id = ? AND (last_step IS NULL OR last_step < ?)`,
      ),
      delete: db.prepare(`DELETE FROM mfa_enrollments WHERE identity_id = ?`),
      codes: db.prepare(
        `SELECT id, code, used_at FROM mfa_recovery_codes WHERE identity_id = ? AND used_at IS NULL ORDER BY rowid`,
      ),
      allCodes: db.prepare(
        `SELECT id, code, used_at FROM mfa_recovery_codes WHERE identity_id = ? ORDER BY rowid`,
      ),
      countCodes: db.prepare(
        `SELECT COUNT(*) AS n FROM mfa_recovery_codes WHERE identity_id = ? AND used_at IS NULL`,
      ),
      insertCode: db.prepare(`INSERT INTO mfa_recovery_codes (id, identity_id, code) VALUES (?, ?, ?)`),
      consumeCode: db.prepare(
        `UPDATE mfa_recovery_codes SET used_at = ? WHERE identity_id = ? AND id = ? AND used_at IS NULL`,
      ),
      deleteCodes: db.prepare(`DELETE FROM mfa_recovery_codes WHERE identity_id = ?`),
      // Keeps the newest MAX_AUDIT_PER_IDENTITY rows of one identity (a user failing codes in a loop, or a
      // script, must not grow the table without end).
      pruneAudit: db.prepare(
        `DELETE FROM mfa_audit_events WHERE identity_id = ? AND seq <= (
           SELECT seq FROM mfa_audit_events WHERE identity_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      ),
      insertAudit: db.prepare(
        `INSERT INTO mfa_audit_events (id, event_type, identity_id, api_session_id, actor_identity_id, source_ip,
           outcome, factor, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
    };
  }

  get(identityId: string): MfaEnrollment | undefined {
    const row = this.stmts.get.get(identityId) as EnrollmentRow | undefined;
    return row && enrollmentOf(row);
  }

  sample(): MfaEnrollment | undefined {
    const row = this.stmts.sample.get() as EnrollmentRow | undefined;
    return row && enrollmentOf(row);
  }

  isVerified(identityId: string): boolean {
    return this.stmts.isVerified.get(identityId) !== undefined;
  }

  verifiedAmong(identityIds: readonly string[]): Set<string> {
    if (identityIds.length === 0) return new Set();
    const rows = this.stmts.verifiedAmong.all(JSON.stringify(identityIds)) as { identity_id: string }[];
    return new Set(rows.map((r) => r.identity_id));
  }

  countVerified(): number {
    return (this.stmts.countVerified.get() as { n: number }).n;
  }

  create(e: MfaEnrollment, codes: readonly SealedRecoveryCode[]): boolean {
    return this.db.transaction(() => {
      const at = e.createdAt.toISOString();
      if (this.stmts.insert.run(e.identityId, e.id, e.sealedSecret, at, at, e.startedBy).changes === 0)
        return false;
      for (const c of codes) this.stmts.insertCode.run(c.id, e.identityId, c.sealed);
      return true;
    })();
  }

  markVerified(judged: Pick<MfaEnrollment, 'identityId' | 'id'>, step: number, at: Date): boolean {
    const iso = at.toISOString();
    return this.stmts.markVerified.run(step, iso, iso, judged.identityId, judged.id, step).changes === 1;
  }

  advanceStep(judged: Pick<MfaEnrollment, 'identityId' | 'id'>, step: number, at: Date): boolean {
    return (
      this.stmts.advanceStep.run(step, at.toISOString(), judged.identityId, judged.id, step).changes === 1
    );
  }

  delete(identityId: string): boolean {
    // The codes go with the enrollment (ON DELETE CASCADE).
    return this.stmts.delete.run(identityId).changes > 0;
  }

  recoveryCodes(identityId: string, includeUsed = false): SealedRecoveryCode[] {
    const rows = (includeUsed ? this.stmts.allCodes : this.stmts.codes).all(identityId) as {
      id: string;
      code: Buffer;
      used_at: string | null;
    }[];
    return rows.map((r) => ({ id: r.id, sealed: r.code, used: r.used_at !== null }));
  }

  countRecoveryCodes(identityId: string): number {
    return (this.stmts.countCodes.get(identityId) as { n: number }).n;
  }

  consumeRecoveryCode(identityId: string, codeId: string): boolean {
    return this.stmts.consumeCode.run(new Date().toISOString(), identityId, codeId).changes === 1;
  }

  replaceRecoveryCodes(identityId: string, codes: readonly SealedRecoveryCode[]): void {
    this.db.transaction(() => {
      this.stmts.deleteCodes.run(identityId);
      for (const c of codes) this.stmts.insertCode.run(c.id, identityId, c.sealed);
    })();
  }

  recordAudit(e: MfaAuditEvent): void {
    this.stmts.insertAudit.run(
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
    );
    this.stmts.pruneAudit.run(e.identityId, e.identityId, MAX_AUDIT_PER_IDENTITY);
  }

  listAudit(query: MfaAuditQuery): Page<MfaAuditEvent> {
    const clauses: string[] = [];
    const values: string[] = [];
    for (const [field, column] of Object.entries(AUDIT_COLUMNS) as [keyof MfaAuditFilter, string][]) {
      const value = query[field];
      if (value === undefined) continue;
      clauses.push(`${column} = ?`);
      values.push(value);
    }
    const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
    const total = this.db.prepare(`SELECT COUNT(*) AS n FROM mfa_audit_events ${where}`).get(...values) as {
      n: number;
    };
    const rows = this.db
      .prepare(`SELECT * FROM mfa_audit_events ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...values, query.limit, query.offset) as AuditRow[];
    return { items: rows.map(auditOf), totalCount: total.n };
  }
}
