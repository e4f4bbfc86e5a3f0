import type { ControllerContext } from '../platform/context.js';
import type { ApiSession, Identity } from '../model.js';
import { expiresAt } from './api-sessions.js';
import { outstandingAuthQueries } from './auth-queries.js';
import { iso, selfLinks } from '../http/envelope.js';
import { ref } from '../http/refs.js';

// Defined with the wire contract the agent shares (src/api/schemas.ts).
export {
  AuthQuerySchema as AuthQueryDetail,
  CurrentApiSessionSchema as CurrentApiSessionDetail,
} from '../../src/api/schemas.js';

/** The current API session as OpenZiti's `currentApiSessionDetail`. */
export async function currentSessionToWire(
  ctx: ControllerContext,
  session: ApiSession,
  identity: Identity,
  token: string,
) {
  const queries = await outstandingAuthQueries(ctx, session, identity);
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
