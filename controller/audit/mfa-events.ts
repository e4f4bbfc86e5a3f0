/**
 * MFA events on the trail. The MFA service keeps its own log (`mfa_audit_events`, GET /mfa-audit-events);
 * each record of it is also put on the trail, in the same transaction (mfa-service.ts `record`), translated
 * here: what happened to the identity's second factor, by whom, from where, never a code or a secret (the MFA
 * record holds none: only the operation, the kind of code that proved it and why a refusal was refused).
 *
 * A code refused because the attempt limits already block the caller (`rate-limited`) stays in the MFA log
 * only: under a guessing attack every blocked guess would otherwise become a trail event and a webhook
 * delivery, while the refusals that led to the block (at most 10 per identity per 5 minutes,
 * code-verifier.ts MFA_LIMITS) are on the trail.
 */
import type { MfaAuditEvent } from '../store/mfa-repository.js';
import type { Actor, AuditEventType, AuditRecord } from './audit-model.js';

const SUCCESS_TYPE: Record<MfaAuditEvent['eventType'], AuditEventType> = {
  enroll: 'mfa.enrolled',
  verify: 'mfa.verified',
  authenticate: 'mfa.passed',
  remove: 'mfa.removed',
  'admin-remove': 'mfa.removed',
  'identity-deleted': 'mfa.removed',
  'recovery-codes.read': 'mfa.recovery-codes-read',
  'recovery-codes.regenerate': 'mfa.recovery-codes-regenerated',
};

/** Who removed a factor, for `mfa.removed`. */
const REMOVED_BY: Partial<Record<MfaAuditEvent['eventType'], string>> = {
  remove: 'self',
  'admin-remove': 'admin',
  'identity-deleted': 'identity-deleted',
};

/** The trail's events for one MFA record (none, one, or two when a recovery code proved the operation). */
export function mfaTrailRecords(event: MfaAuditEvent, actor: Actor | null): AuditRecord[] {
  const common = { actor, address: event.sourceIp, identityId: event.identityId };
  const details = {
    operation: event.eventType,
    apiSessionId: event.apiSessionId,
    factor: event.factor,
    reason: event.reason,
  };
  if (event.outcome === 'failure')
    return event.reason === 'rate-limited' ? [] : [{ ...common, type: 'mfa.code-refused', details }];
  // An administrator's reset of an identity that had nothing enrolled changed nothing.
  if (event.eventType === 'admin-remove' && event.reason === 'nothing-enrolled') return [];
  const removedBy = REMOVED_BY[event.eventType];
  const records: AuditRecord[] = [
    {
      ...common,
      type: SUCCESS_TYPE[event.eventType],
      details: removedBy ? { ...details, removedBy } : details,
    },
  ];
  if (event.factor === 'recovery-code') records.push({ ...common, type: 'mfa.recovery-code-used', details });
  return records;
}
