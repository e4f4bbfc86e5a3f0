/**
 * Storage of MFA enrollments, recovery codes and the MFA audit log. Secrets and codes arrive here already
 * sealed (see secret-box.ts): a store never sees them in clear, so no backend can leak them.
 */
// The wire contract's closed sets (src/api/resources/vocabulary.ts), re-exported where the model names them.
import { MFA_AUDIT_EVENT_TYPES } from '../../src/api/resources/vocabulary.js';
import type { Page } from './page.js';
import type { Async } from './async.js';

export interface MfaEnrollment {
  id: string;
  identityId: string;
  isVerified: boolean;
  /** the sealed TOTP secret (20 random bytes before sealing) */
  sealedSecret: Buffer;
  /** highest TOTP time step accepted so far; a code for it or an earlier step is refused (RFC 6238 §5.2) */
  lastStep: number | null;
  createdAt: Date;
  updatedAt: Date;
  verifiedAt: Date | null;
  /** the API session that started it; only that one may see the secret or verify (null: from before) */
  startedBy: string | null;
}

export interface SealedRecoveryCode {
  id: string;
  sealed: Buffer;
  /** set once the code was used: it no longer works, but is still recognised */
  used?: boolean;
}

export { MFA_AUDIT_EVENT_TYPES };
export type MfaAuditEventType = (typeof MFA_AUDIT_EVENT_TYPES)[number];
export type MfaAuditOutcome = 'success' | 'failure';
/** which kind of code proved the factor; recovery-code uses are found by this */
export type MfaFactor = 'totp' | 'recovery-code';

/** One audited MFA action. Never holds a secret or a code, only what happened, to whom, from where. */
export interface MfaAuditEvent {
  id: string;
  at: Date;
  eventType: MfaAuditEventType;
  identityId: string;
  apiSessionId: string | null;
  /** who acted when it was not the identity itself (an administrator) */
  actorIdentityId: string | null;
  sourceIp: string | null;
  outcome: MfaAuditOutcome;
  factor: MfaFactor | null;
  /** why a failure failed (e.g. invalid-code, replayed-code, rate-limited) or how a removal happened */
  reason: string | null;
}

export interface MfaAuditFilter {
  identityId?: string;
  eventType?: string;
  outcome?: string;
  apiSessionId?: string;
  actorIdentityId?: string;
  sourceIp?: string;
  factor?: string;
}

export interface MfaAuditQuery extends MfaAuditFilter {
  limit: number;
  offset: number;
}

/** What the MFA module uses: each method answers a promise (see store/async.ts). */
export type MfaRepository = Async<SyncMfaRepository>;

export interface SyncMfaRepository {
  get(identityId: string): MfaEnrollment | undefined;
  /** any one stored enrollment (to prove at startup that the master key still opens what is stored) */
  sample(): MfaEnrollment | undefined;
  isVerified(identityId: string): boolean;
  /**
   * which of these identities have a verified enrollment: `isVerified` for a page of identities, in one read
   * (none, without a read, for an empty list)
   */
  verifiedAmong(identityIds: readonly string[]): Set<string>;
  /** how many identities have a verified enrollment (the share administrators watch) */
  countVerified(): number;
  /** stores a new unverified enrollment with its codes; false when the identity already has one */
  create(enrollment: MfaEnrollment, codes: readonly SealedRecoveryCode[]): boolean;
  /**
   * Marks the enrollment verified and records `step` as the last accepted one, only if it is still the
   * enrollment the code was judged against (the same id: removed and started again, it is another), still
   * unverified, and `step` is newer than any accepted before; false otherwise (lost a race, or a replay).
   */
  markVerified(judged: Pick<MfaEnrollment, 'identityId' | 'id'>, step: number, at: Date): boolean;
  /**
   * compare-and-set of the last accepted step: true only when the judged enrollment is still the identity's
   * (the same id) and `step` is newer than the stored one
   */
  advanceStep(judged: Pick<MfaEnrollment, 'identityId' | 'id'>, step: number, at: Date): boolean;
  /** removes the enrollment and its recovery codes; false when there was none */
  delete(identityId: string): boolean;

  /** the unused codes; with `includeUsed`, the used ones too (marked) */
  recoveryCodes(identityId: string, includeUsed?: boolean): SealedRecoveryCode[];
  countRecoveryCodes(identityId: string): number;
  /** marks one code used; true only for the caller whose update used it (single use under races) */
  consumeRecoveryCode(identityId: string, codeId: string): boolean;
  replaceRecoveryCodes(identityId: string, codes: readonly SealedRecoveryCode[]): void;

  recordAudit(event: MfaAuditEvent): void;
  /** newest first */
  listAudit(query: MfaAuditQuery): Page<MfaAuditEvent>;
}
