/**
 * Sign-ins on the trail. A successful one is recorded in the transaction that creates its API session; a
 * failed one (a wrong password, an unknown certificate: the 401s) in its own, naming the identity the
 * username belongs to when there is one, so "who tried to be Dana" is answerable. Refusals for too many
 * attempts (429) are not recorded one by one: under a guessing attack they would turn every refused guess
 * into a write, and the attempt counters already answer them without touching the store.
 */
import type { FastifyRequest } from 'fastify';
import type { Identity } from '../model.js';
import type { ControllerContext } from '../platform/context.js';
import { ApiError } from '../api-error.js';
import { recordAudit } from './audit-trail.js';

export async function recordSignIn(
  ctx: ControllerContext,
  request: FastifyRequest,
  identity: Identity,
  details: { method: string; apiSessionId: string },
): Promise<void> {
  await recordAudit(
    ctx,
    {
      type: 'auth.signed-in',
      actor: { id: identity.id, name: identity.name },
      address: request.ip,
      identityId: identity.id,
      details,
    },
    ctx.clock.now(),
  );
}

/** Records `err` when it is a refused sign-in (a 401); anything else (a 400, a 429) is left alone. */
export async function recordFailedSignIn(
  ctx: ControllerContext,
  request: FastifyRequest,
  err: unknown,
  attempt: { method: string; username?: string },
): Promise<void> {
  if (!(err instanceof ApiError) || err.status !== 401) return;
  const login =
    attempt.username === undefined
      ? undefined
      : await ctx.store.authenticators.getByUsername(attempt.username);
  await recordAudit(
    ctx,
    {
      type: 'auth.sign-in-failed',
      address: request.ip,
      identityId: login?.identityId ?? null,
      details: { method: attempt.method, username: attempt.username ?? null, reason: err.code },
    },
    ctx.clock.now(),
  );
}
