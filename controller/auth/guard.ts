import { isDisabledNow } from '../identity-disabled.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiSession, Identity } from '../model.js';
import type { ControllerContext } from '../platform/context.js';
import { expiresAt, resolveApiSession } from './api-sessions.js';
import { outstandingAuthQueries, type AuthQuery } from './auth-queries.js';
import { unauthorized } from '../api-error.js';

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
  /** what the route demands, so a write can confirm it again inside its transaction */
  access: Exclude<Access, 'public'>;
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

/**
 * Authenticates every request of an API twice:
 * - before its body is even read (`onRequest`), so strangers learn nothing and send nothing more;
 * - again once the body has arrived (`preHandler`), because a client may hold its body back for as long as
 *   the request timeout allows: what decides is whether the API session, the identity and its rights are
 *   still what they were when the handler acts, not when the headers came. A sign-out, a password change, a
 *   disabled identity or lost administrator rights in between refuse the request.
 * Writes that grant access (a new edge session) confirm once more inside their transaction (`confirmCaller`).
 */
export function installGuard(app: FastifyInstance, ctx: ControllerContext, defaultAccess: Access): void {
  app.decorateRequest('auth', undefined);
  const accessOf = (request: FastifyRequest) => request.routeOptions.config?.access ?? defaultAccess;
  app.addHook('onRequest', async (request) => {
    const access = accessOf(request);
    if (access === 'public') return;
    request.auth = await authorize(ctx, tokenOf(request), access);
  });
  app.addHook('preHandler', async (request) => {
    const access = accessOf(request);
    if (access === 'public' || request.body === undefined) return;
    request.auth = await authorize(ctx, tokenOf(request), access);
  });
}

function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers[SESSION_HEADER];
  return Array.isArray(header) ? header[0] : header;
}

/** The caller a token names now, held to `access`; throws 401 when the session, identity or rights fall short. */
async function authorize(
  ctx: ControllerContext,
  token: string | undefined,
  access: Exclude<Access, 'public'>,
): Promise<RequestAuth> {
  if (!token) throw unauthorized('No zt-session header: authenticate first');
  const session = await resolveApiSession(ctx, token);
  if (!session) throw unauthorized('The API session is unknown or has expired');
  return { ...(await holdTo(ctx, session, access)), token };
}

async function holdTo(
  ctx: ControllerContext,
  session: ApiSession,
  access: Exclude<Access, 'public'>,
): Promise<Omit<RequestAuth, 'token'>> {
  const identity = await ctx.store.identities.get(session.identityId);
  if (!identity || isDisabledNow(identity, ctx.clock.now()))
    throw unauthorized('The identity of this API session no longer exists or is disabled');
  const authQueries = await outstandingAuthQueries(ctx, session, identity);
  if (authQueries.length > 0 && access !== 'partial') {
    throw unauthorized(
      'This API session must complete its MFA authentication first (POST ./authenticate/mfa)',
    );
  }
  if (access === 'admin' && !identity.isAdmin) throw unauthorized('This API requires an administrator');
  return { session, identity, authQueries, access };
}

/** Who asks, as a write that grants access confirms it: the API session and the rights the route demanded. */
export interface Caller {
  session: ApiSession;
  identity: Identity;
  /** what the route demanded; `full` when not said */
  access?: Exclude<Access, 'public'>;
}

/**
 * The caller read again, for a write that grants access: called inside the write's transaction (after
 * `store.serializeOn` for the identity), so a revocation either committed before and is seen here, or waits
 * for this write and then finds what it made. Throws 401 as the guard would.
 */
export async function confirmCaller(
  ctx: ControllerContext,
  caller: Caller,
): Promise<{ session: ApiSession; identity: Identity }> {
  const session = await ctx.store.apiSessions.get(caller.session.id);
  if (!session || expiresAt(ctx, session) <= ctx.clock.now())
    throw unauthorized('The API session is unknown or has expired');
  return holdTo(ctx, session, caller.access ?? 'full');
}

/** The request's auth, for routes that are not public (the guard has set it). */
export function authOf(request: FastifyRequest): RequestAuth {
  if (!request.auth) throw unauthorized();
  return request.auth;
}
