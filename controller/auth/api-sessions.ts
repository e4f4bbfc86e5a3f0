import { hash, randomUUID } from 'node:crypto';
import type { ApiSession, Identity } from '../model.js';
import type { ControllerContext } from '../platform/context.js';
import { serializeAccessOf } from '../store/access-lock.js';
import { recordApiSessionEnd, type ApiSessionEnd } from '../audit/api-session-ends.js';

// The one-shot form: every authenticated request hashes its token, and it skips building a Hash object.
export const hashToken = (token: string) => hash('sha256', token, 'hex');

// Writing last-activity on every request would cost an fsync each; a few seconds of slack is harmless
// against a 30-minute inactivity timeout.
const TOUCH_INTERVAL_MS = 5_000;

export interface NewSessionInput {
  identity: Identity;
  authenticatorId: string;
  ipAddress: string;
  envInfo: Record<string, string>;
  sdkInfo: Record<string, string>;
  configTypes: string[];
}

/**
 * A new API session for a sign-in. Stored with the cap on the identity's sessions in one transaction, so two
 * sign-ins at once do not both end the same old sessions or keep too many. Called outside a transaction, it
 * resolves once the events' listeners have run.
 */
export async function createApiSession(
  ctx: ControllerContext,
  input: NewSessionInput,
): Promise<{ session: ApiSession; token: string }> {
  const now = ctx.clock.now();
  const token = randomUUID();
  return ctx.store.transaction(async () => {
    const session: ApiSession = {
      id: randomUUID(),
      identityId: input.identity.id,
      authenticatorId: input.authenticatorId,
      ipAddress: input.ipAddress,
      configTypes: input.configTypes,
      envInfo: input.envInfo,
      sdkInfo: input.sdkInfo,
      // A verified enrollment makes this login owe a TOTP code (OpenZiti's totpRequired). Read in the
      // transaction: an enrollment verified meanwhile either is seen here or ends this session (MfaService).
      isMfaRequired: await ctx.store.mfa.isVerified(input.identity.id),
      isMfaComplete: false,
      createdAt: now,
      updatedAt: now,
      lastActivityAt: now,
    };
    await ctx.store.apiSessions.create(session, hashToken(token));
    ctx.events.emit('apiSession.created', session.id, session.identityId);
    await endSessionsOverCap(ctx, session);
    return { session, token };
  });
}

/**
 * A script that signs in on every run and never signs out would pile up sessions without end; past the
 * cap the least recently used ones end (never the newest, and a 429 would lock the owner out instead).
 */
async function endSessionsOverCap(ctx: ControllerContext, newest: ApiSession): Promise<void> {
  const sessions = (await ctx.store.apiSessions.listByIdentity(newest.identityId)).filter(
    (s) => s.id !== newest.id,
  );
  const over = sessions.length + 1 - ctx.config.maxApiSessionsPerIdentity;
  if (over <= 0) return;
  sessions.sort((a, b) => a.lastActivityAt.getTime() - b.lastActivityAt.getTime());
  for (const oldest of sessions.slice(0, over)) await deleteApiSession(ctx, oldest, { cause: 'over-cap' });
}

export function expiresAt(ctx: ControllerContext, session: ApiSession): Date {
  return new Date(session.lastActivityAt.getTime() + ctx.config.sessionTimeoutSeconds * 1000);
}

/** The live session a token names, refreshed; undefined when unknown or expired (expired ones are removed). */
export async function resolveApiSession(
  ctx: ControllerContext,
  token: string,
): Promise<ApiSession | undefined> {
  const session = await ctx.store.apiSessions.getByTokenHash(hashToken(token));
  if (!session) return undefined;
  const now = ctx.clock.now();
  if (expiresAt(ctx, session) <= now) {
    await deleteApiSession(ctx, session, { cause: 'idle-timeout' });
    return undefined;
  }
  if (now.getTime() - session.lastActivityAt.getTime() >= TOUCH_INTERVAL_MS) {
    await ctx.store.apiSessions.touch(session.id, now);
    session.lastActivityAt = now;
  }
  return session;
}

/**
 * Deletes the session. Outside a transaction it resolves once the `apiSession.deleted` listeners (its
 * sessions' and tunnels' ends) have run; inside one it joins it, and they run when it commits.
 */
export async function deleteApiSession(
  ctx: ControllerContext,
  session: ApiSession,
  end: ApiSessionEnd,
): Promise<void> {
  await ctx.store.transaction(async () => {
    // Its edge sessions go with it (the store's cascade): one at a time with a session being granted to it.
    await serializeAccessOf(ctx.store, session.identityId);
    if (!(await ctx.store.apiSessions.delete(session.id))) return;
    await recordApiSessionEnd(ctx, session, end, ctx.clock.now());
    ctx.events.emit('apiSession.deleted', session.id, session.identityId);
  });
}

/**
 * Ends the identity's API sessions (and with them its sessions and tunnels), except `keep`: after its
 * credentials or second factor changed, a session opened under the old ones must not live on. Outside a
 * transaction it resolves once they have ended; inside one they end when it commits (see deleteApiSession).
 */
export async function endApiSessionsOf(
  ctx: ControllerContext,
  identityId: string,
  end: ApiSessionEnd,
  keep?: string,
): Promise<number> {
  return ctx.store.transaction(async () => {
    let ended = 0;
    for (const session of await ctx.store.apiSessions.listByIdentity(identityId)) {
      if (session.id === keep) continue;
      await deleteApiSession(ctx, session, end);
      ended++;
    }
    return ended;
  });
}

/** Removes every session idle past the timeout; run periodically so abandoned sessions do not pile up. */
export async function sweepIdleSessions(ctx: ControllerContext): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - ctx.config.sessionTimeoutSeconds * 1000);
  return ctx.store.transaction(async () => {
    const removed = await ctx.store.apiSessions.deleteIdleSince(cutoff);
    const now = ctx.clock.now();
    for (const { id, identityId } of removed) {
      await recordApiSessionEnd(ctx, { id, identityId }, { cause: 'idle-timeout' }, now);
      ctx.events.emit('apiSession.deleted', id, identityId);
    }
    return removed.length;
  });
}
