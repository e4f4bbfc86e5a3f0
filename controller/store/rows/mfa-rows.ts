/**
 * The MFA rows as both databases answer them (store/repositories/mfa-queries.ts). The enrollment row differs
 * only in how each answers two columns: SQLite is_verified 1/0 and last_step a number, PostgreSQL a boolean
 * and its int8 as a string.
 */
import type { MfaAuditEvent, MfaAuditFilter, MfaEnrollment } from '../mfa-repository.js';

export interface EnrollmentRow {
  identity_id: string;
  id: string;
  is_verified: number | boolean;
  secret: Buffer;
  last_step: number | string | null;
  created_at: string;
  updated_at: string;
  verified_at: string | null;
  started_by: string | null;
}

export const enrollmentOf = (r: EnrollmentRow): MfaEnrollment => ({
  id: r.id,
  identityId: r.identity_id,
  isVerified: Boolean(r.is_verified),
  sealedSecret: r.secret,
  lastStep: r.last_step === null ? null : Number(r.last_step),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
  verifiedAt: r.verified_at === null ? null : new Date(r.verified_at),
  startedBy: r.started_by,
});

export interface AuditRow {
  id: string;
  event_type: MfaAuditEvent['eventType'];
  identity_id: string;
  api_session_id: string | null;
  actor_identity_id: string | null;
  source_ip: string | null;
  outcome: MfaAuditEvent['outcome'];
  factor: MfaAuditEvent['factor'];
  reason: string | null;
  created_at: string;
}

export const auditOf = (r: AuditRow): MfaAuditEvent => ({
  id: r.id,
  at: new Date(r.created_at),
  eventType: r.event_type,
  identityId: r.identity_id,
  apiSessionId: r.api_session_id,
  actorIdentityId: r.actor_identity_id,
  sourceIp: r.source_ip,
  outcome: r.outcome,
  factor: r.factor,
  reason: r.reason,
});

/** Audit filter fields and their columns: the only names that ever reach the SQL text. */
export const AUDIT_COLUMNS: Record<keyof MfaAuditFilter, string> = {
  identityId: 'identity_id',
  eventType: 'event_type',
  outcome: 'outcome',
  apiSessionId: 'api_session_id',
  actorIdentityId: 'actor_identity_id',
  sourceIp: 'source_ip',
  factor: 'factor',
};
