/**
 * A password sign-in attempt, judged under its limits (see AttemptLimits: per username and address, per
 * address, per username), each attempt holding its place before its hash is computed (so parallel requests
 * share the limit), and the
 * hashing itself runs behind the bounded gate. Throws 429 or 401; answers who signed in.
 */
import { isDisabledNow } from '../identity-disabled.js';
import type { FastifyBaseLogger } from 'fastify';
import type { ControllerContext } from '../platform/context.js';
import type { Authenticator, Identity } from '../model.js';
import { invalidAuth, rateLimited } from '../api-error.js';
import { safeForLog } from '../logger.js';
import { decoyHash, verifyPassword } from './passwords.js';
import { GateFull } from '../platform/limits/work-gate.js';
import type { AttemptOutcome } from '../platform/limits/attempt-limits.js';

export async function checkPassword(
  ctx: ControllerContext,
  username: string,
  password: string,
  from: { ip: string; log: FastifyBaseLogger },
): Promise<{ authenticator: Authenticator; identity: Identity }> {
  const held = await ctx.loginLimits.reserve(username, from.ip);
  if ('retryAfterMs' in held) throw rateLimited(held.retryAfterMs / 1000, 'Too many failed sign-ins');
  // A sign-in the gate turned away was never tried: it gives its place back without counting.
  let outcome: AttemptOutcome = 'failed';
  try {
    const authenticator = await ctx.store.authenticators.getByUsername(username);
    // An unknown username costs the same hashing as a known one, so timing does not reveal accounts.
    const stored = authenticator?.passwordHash ?? (await decoyHash());
    const valid = await ctx.passwordHashing
      .run(() => verifyPassword(password, stored))
      .catch((err: unknown) => {
        if (!(err instanceof GateFull)) throw err;
        outcome = 'not-tried';
        throw rateLimited(1, 'Too many sign-ins at once');
      });
    const identity = authenticator && (await ctx.store.identities.get(authenticator.identityId));
    if (!valid || !authenticator || !identity || isDisabledNow(identity, ctx.clock.now())) {
      from.log.info({ username: safeForLog(username), ip: from.ip }, 'password authentication failed');
      throw invalidAuth();
    }
    outcome = 'passed';
    return { authenticator, identity };
  } finally {
    await ctx.loginLimits.settle(held.ticket, outcome);
  }
}
