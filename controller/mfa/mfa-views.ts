/** The MFA routes' wire views (their schemas are the wire contract's: src/api/resources/mfa.ts). */

import { iso } from '../http/envelope.js';
import type { MfaAuditEvent, MfaEnrollment } from '../store/mfa-repository.js';
import type { MfaStatus } from './mfa-service.js';

const SELF = './current-identity/mfa';

function links(enrollment: MfaEnrollment): Record<string, { href: string }> {
  const base = { self: { href: SELF }, 'current-identity': { href: './current-identity' } };
  return enrollment.isVerified
    ? { ...base, 'recovery-codes': { href: `${SELF}/recovery-codes` } }
    : { ...base, verify: { href: `${SELF}/verify` }, qr: { href: `${SELF}/qr-code` } };
}

const baseOf = (e: MfaEnrollment) => ({
  id: e.id,
  createdAt: iso(e.createdAt),
  updatedAt: iso(e.updatedAt),
  _links: links(e),
  tags: {},
});

export function statusToWire(status: MfaStatus) {
  const { enrollment } = status;
  return {
    ...baseOf(enrollment),
    isVerified: enrollment.isVerified,
    verifiedAt: iso(enrollment.verifiedAt),
    recoveryCodesRemaining: status.recoveryCodesRemaining,
    ...(status.recoveryCodes ? { recoveryCodes: status.recoveryCodes } : {}),
    ...(status.provisioningUrl ? { provisioningUrl: status.provisioningUrl } : {}),
  };
}

export function createdToWire(status: MfaStatus) {
  const { enrollment } = status;
  return {
    data: {
      id: enrollment.id,
      _links: links(enrollment),
      isVerified: false,
      recoveryCodes: status.recoveryCodes ?? [],
      provisioningUrl: status.provisioningUrl ?? '',
    },
    meta: {},
  };
}

export const recoveryCodesToWire = (enrollment: MfaEnrollment, codes: string[]) => ({
  ...baseOf(enrollment),
  recoveryCodes: codes,
});

export const auditEventToWire = (e: MfaAuditEvent) => ({
  id: e.id,
  createdAt: iso(e.at),
  eventType: e.eventType,
  identityId: e.identityId,
  apiSessionId: e.apiSessionId,
  actorIdentityId: e.actorIdentityId,
  sourceIp: e.sourceIp,
  outcome: e.outcome,
  factor: e.factor,
  reason: e.reason,
});
