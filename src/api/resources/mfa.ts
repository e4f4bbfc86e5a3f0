/**
 * MFA (TOTP) on the wire, the same on the client and management APIs (`/authenticate/mfa`,
 * `/current-identity/mfa*`), and the management API's MFA audit log. The enrollment, code and recovery-code
 * bodies the agent also reads are defined in ../schemas.ts and named here for the routes.
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  MfaCodeSchema,
  MfaCreatedSchema,
  MfaDetailSchema,
  MfaRecoveryCodesSchema,
  OptionalMfaCodeSchema,
} from '../schemas.js';
import { DateTime } from './fields.js';
import { Meta, PaginationMeta } from './envelopes.js';
import { MFA_AUDIT_EVENT_TYPES } from './vocabulary.js';

/** `mfaCode` of the OpenZiti spec: a missing `code` fails validation (400 COULD_NOT_VALIDATE). Shared with the
 *  agent (../schemas.ts). */
export const CodeBody = MfaCodeSchema;
export const OptionalCodeBody = OptionalMfaCodeSchema;
export const AnyBody = Type.Object({}, { additionalProperties: true });
/** OpenZiti clients send the code for DELETE and GET recovery-codes in this header instead of a body. */
export const CodeHeaders = Type.Object(
  { 'mfa-validation-code': Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: true },
);

// Defined with the wire contract the agent shares (../schemas.ts).
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

export type MfaAuditEventWire = Static<typeof MfaAuditEventDetail>;
