import { Type } from '@sinclair/typebox';
import {
  MfaCodeSchema,
  MfaCreatedSchema,
  MfaDetailSchema,
  MfaRecoveryCodesSchema,
  OptionalMfaCodeSchema,
} from '../../src/api/schemas.js';
import { iso } from '../http/envelope.js';
import { DateTime } from '../../src/api/resources/fields.js';
import { Meta, PaginationMeta } from '../../src/api/resources/envelopes.js';
import { MFA_AUDIT_EVENT_TYPES, type MfaAuditEvent, type MfaEnrollment } from '../store/mfa-repository.js';
import type { MfaStatus } from './mfa-service.js';

/** The MFA routes' request and response shapes (published in /openapi.json) and the wire views. */

/** `mfaCode` of the OpenZiti spec: a missing `code` fails validation (400 COULD_NOT_VALIDATE). Shared with the
 *  agent (src/api/schemas.ts). */
export const CodeBody = MfaCodeSchema;
export const OptionalCodeBody = OptionalMfaCodeSchema;
export const AnyBody = Type.Object({}, { additionalProperties: true });
/** OpenZiti clients send the code for DELETE and GET recovery-codes in this header instead of a body. */
export const CodeHeaders = Type.Object(
  { 'mfa-validation-code': Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: true },
);

// Defined with the wire contract the agent shares (src/api/schemas.ts).
export const MfaDetail = MfaDetailSchema;
/** 201 of POST /current-identity/mfa: OpenZiti's createResponse plus the recovery codes and provisioning URL. */
export const MfaCreatedEnvelope = Type.Object({ data: MfaCreatedSchema, meta: Meta });
export const RecoveryCodesDetail = MfaRecoveryCodesSchema;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
export const MfaAuditEventDetail = Type.Object({
  id: Type.String(),
  createdAt: DateTime,
  eventType: Type.Union(MFA_AUDIT_EVENT_TYPES.map((t) => Type.Literal(t))),
  identityId: Type.String(),
  apiSessionId: Nullable(Type.String()),
  actorIdentityId: Nullable(
    Type.String({ description: 'the administrator, when one acted on the identity' }),
  ),
  sourceIp: Nullable(Type.String()),
  outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
  factor: Type.Union([Type.Literal('totp'), Type.Literal('recovery-code'), Type.Null()]),
  reason: Nullable(Type.String()),
});
export const MfaAuditList = Type.Object({ data: Type.Array(MfaAuditEventDetail), meta: PaginationMeta });

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
