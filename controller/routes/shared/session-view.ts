import { Type } from '@sinclair/typebox';
import type { ControllerContext } from '../../context.js';
import type { ApiSession, Identity } from '../../model.js';
import { expiresAt } from '../../auth/api-sessions.js';
import { outstandingAuthQueries } from '../../auth/auth-queries.js';
import { iso, selfLinks } from '../../http/envelope.js';
import { BaseEntity, DateTime, EntityRef } from '../../http/schemas.js';
import { ref } from '../management/refs.js';

export const AuthQueryDetail = Type.Object({
  typeId: Type.String(),
  provider: Type.String(),
  httpMethod: Type.String(),
  httpUrl: Type.String(),
  minLength: Type.Integer(),
  maxLength: Type.Integer(),
  format: Type.String(),
  isTotpEnrolled: Type.Boolean(),
});

export const CurrentApiSessionDetail = Type.Object(
  {
    ...BaseEntity,
    token: Type.String(),
    identity: EntityRef,
    identityId: Type.String(),
    authenticatorId: Type.String(),
    configTypes: Type.Array(Type.String()),
    ipAddress: Type.String(),
    authQueries: Type.Array(AuthQueryDetail),
    isMfaRequired: Type.Boolean(),
    isMfaComplete: Type.Boolean(),
    isCertExtendable: Type.Boolean(),
    expiresAt: DateTime,
    expirationSeconds: Type.Integer(),
    lastActivityAt: DateTime,
    cachedLastActivityAt: DateTime,
    cachedUpdatedAt: DateTime,
  },
  { additionalProperties: true },
);

/** The current API session as OpenZiti's `currentApiSessionDetail`. */
export function currentSessionToWire(
  ctx: ControllerContext,
  session: ApiSession,
  identity: Identity,
  token: string,
) {
  const queries = outstandingAuthQueries(ctx, session, identity);
  const expires = expiresAt(ctx, session);
  const requireTotp = queries.length > 0 || session.isMfaRequired;
  return {
    id: session.id,
    createdAt: iso(session.createdAt),
    updatedAt: iso(session.updatedAt),
    _links: selfLinks('current-api-session', session.id),
    tags: {},
    token,
    identity: ref('identities', identity.id, identity.name),
    identityId: identity.id,
    authenticatorId: session.authenticatorId,
    configTypes: session.configTypes,
    ipAddress: session.ipAddress,
    authQueries: queries,
    isMfaRequired: requireTotp,
    isMfaComplete: session.isMfaComplete,
    isCertExtendable: false,
    expiresAt: iso(expires),
    expirationSeconds: Math.max(0, Math.round((expires.getTime() - ctx.clock.now().getTime()) / 1000)),
    lastActivityAt: iso(session.lastActivityAt),
    cachedLastActivityAt: iso(session.lastActivityAt),
    cachedUpdatedAt: iso(session.updatedAt),
  };
}

/** Headers OpenZiti sends with session details so clients can schedule a refresh. */
export function sessionHeaders(ctx: ControllerContext, session: ApiSession): Record<string, string> {
  const expires = expiresAt(ctx, session);
  return {
    'expires-at': expires.toISOString(),
    'expiration-seconds': String(
      Math.max(0, Math.round((expires.getTime() - ctx.clock.now().getTime()) / 1000)),
    ),
  };
}
