/**
 * Sessions: `POST /authenticate`'s query (both APIs; its body is the agent's too, in ../schemas.ts), and on the
 * management API `api-sessions` (who is signed in, from where, with MFA or not) and
 * `sessions` (edge sessions, each one identity's access to one service). Tokens are never shown: only their
 * hashes are stored, so `token` is always empty.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionDetailSchema } from '../schemas.js';
import { BaseEntity, DateTime, EntityRef } from './fields.js';

export const ApiSessionDetail = Type.Object(
  {
    ...BaseEntity,
    token: Type.String({ description: 'always empty: tokens are stored only as hashes' }),
    identity: EntityRef,
    identityId: Type.String(),
    authenticatorId: Type.String(),
    configTypes: Type.Array(Type.String()),
    ipAddress: Type.String(),
    authQueries: Type.Array(Type.Object({}, { additionalProperties: true })),
    isMfaRequired: Type.Boolean(),
    isMfaComplete: Type.Boolean(),
    isCertExtendable: Type.Boolean(),
    lastActivityAt: DateTime,
    cachedLastActivityAt: DateTime,
    cachedUpdatedAt: DateTime,
  },
  { additionalProperties: true },
);

export type ApiSessionWire = Static<typeof ApiSessionDetail>;

export const SessionManagementDetail = Type.Object(
  {
    ...SessionDetailSchema.properties,
    token: Type.String({ description: 'always empty: only a hash of the token is stored' }),
  },
  { additionalProperties: true },
);

/** `POST /authenticate?method=password|cert` */
export const AuthenticateQuery = Type.Object({ method: Type.String() });
