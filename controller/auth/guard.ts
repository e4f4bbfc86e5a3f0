import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiSession, Identity } from '../model.js';
import type { ControllerContext } from '../context.js';
import { resolveApiSession } from './api-sessions.js';
import { outstandingAuthQueries, type AuthQuery } from './auth-queries.js';
import { unauthorized } from '../http/api-error.js';

/**
 * Who may call a route:
 * - `public`: anyone (authenticate, version);
 * - `partial`: any live API session, even one that still owes a TOTP code (the MFA login/enrol routes);
 * - `full`: a fully authenticated session;
 * - `admin`: a fully authenticated administrator (the management API's default).
 */
export type Access = 'public' | 'partial' | 'full' | 'admin';

export interface RequestAuth {
  session: ApiSession;
  identity: Identity;
  token: string;
  authQueries: AuthQuery[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    auth?: RequestAuth;
  }
}

export const SESSION_HEADER = 'zt-session';

/** Authenticates every request of an API before its body is even parsed, so strangers learn nothing. */
export function installGuard(app: FastifyInstance, ctx: ControllerContext, defaultAccess: Access): void {
  app.decorateRequest('auth', undefined);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config?.access ?? defaultAccess;
    if (access === 'public') return;
    request.auth = await authenticate(ctx, request);
    if (request.auth.authQueries.length > 0 && access !== 'partial') {
      throw unauthorized(
        'This API session must complete its MFA authentication first (POST ./authenticate/mfa)',
      );
    }
    if (access === 'admin' && !request.auth.identity.isAdmin) {
      throw unauthorized('This API requires an administrator');
    }
  });
}

async function authenticate(ctx: ControllerContext, request: FastifyRequest): Promise<RequestAuth> {
  const header = request.headers[SESSION_HEADER];
  const token = Array.isArray(header) ? header[0] : header;
  if (!token) throw unauthorized('No zt-session header: authenticate first');
  const session = await resolveApiSession(ctx, token);
  if (!session) throw unauthorized('The API session is unknown or has expired');
  const identity = await ctx.store.identities.get(session.identityId);
  if (!identity || identity.disabled)
    throw unauthorized('The identity of this API session no longer exists or is disabled');
  return { session, identity, token, authQueries: await outstandingAuthQueries(ctx, session, identity) };
}

/** The request's auth, for routes that are not public (the guard has set it). */
export function authOf(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw unauthorized();
  return request.auth;
}
