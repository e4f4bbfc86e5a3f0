import { createHash, randomUUID } from 'node:crypto';
import type { ApiSession, Identity } from '../model.js';
import type { ControllerContext } from '../context.js';

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

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

export function createApiSession(
  ctx: ControllerContext,
  input: NewSessionInput,
): { session: ApiSession; token: string } {
  const now = ctx.clock.now();
  const token = randomUUID();
  const session: ApiSession = {
    id: randomUUID(),
    identityId: input.identity.id,
    authenticatorId: input.authenticatorId,
    ipAddress: input.ipAddress,
    configTypes: input.configTypes,
    envInfo: input.envInfo,
    sdkInfo: input.sdkInfo,
    // A verified enrollment makes this login owe a TOTP code (OpenZiti's totpRequired).
    isMfaRequired: ctx.isMfaEnrolled(input.identity.id),
    isMfaComplete: false,
    createdAt: now,
    updatedAt: now,
    lastActivityAt: now,
  };
  ctx.store.apiSessions.create(session, hashToken(token));
  ctx.events.emit('apiSession.created', session.id, session.identityId);
  endSessionsOverCap(ctx, session);
  return { session, token };
}

/**
 * A script that signs in on every run and never signs out would pile up sessions without end; past the
 * cap the least recently used ones end (never the newest, and a 429 would lock the owner out instead).
 */
function endSessionsOverCap(ctx: ControllerContext, newest: ApiSession): void {
  const sessions = ctx.store.apiSessions.listByIdentity(newest.identityId).filter((s) => s.id !== newest.id);
  const over = sessions.length + 1 - ctx.config.maxApiSessionsPerIdentity;
  if (over <= 0) return;
  sessions.sort((a, b) => a.lastActivityAt.getTime() - b.lastActivityAt.getTime());
  for (const oldest of sessions.slice(0, over)) deleteApiSession(ctx, oldest);
}

export function expiresAt(ctx: ControllerContext, session: ApiSession): Date {
  return new Date(session.lastActivityAt.getTime() + ctx.config.sessionTimeoutSeconds * 1000);
}

/** The live session a token names, refreshed; undefined when unknown or expired (expired ones are removed). */
export function resolveApiSession(ctx: ControllerContext, token: string): ApiSession | undefined {
  const session = ctx.store.apiSessions.getByTokenHash(hashToken(token));
  if (!session) return undefined;
  const now = ctx.clock.now();
  if (expiresAt(ctx, session) <= now) {
    deleteApiSession(ctx, session);
    return undefined;
  }
  if (now.getTime() - session.lastActivityAt.getTime() >= TOUCH_INTERVAL_MS) {
    ctx.store.apiSessions.touch(session.id, now);
    session.lastActivityAt = now;
  }
  return session;
}

export function deleteApiSession(ctx: ControllerContext, session: ApiSession): void {
  if (ctx.store.apiSessions.delete(session.id))
    ctx.events.emit('apiSession.deleted', session.id, session.identityId);
}

/**
 * Ends the identity's API sessions (and with them its sessions and tunnels), except `keep`: after its
 * credentials or second factor changed, a session opened under the old ones must not live on.
 */
export function endApiSessionsOf(ctx: ControllerContext, identityId: string, keep?: string): number {
  let ended = 0;
  for (const session of ctx.store.apiSessions.listByIdentity(identityId)) {
    if (session.id === keep) continue;
    deleteApiSession(ctx, session);
    ended++;
  }
  return ended;
}

/** Removes every session idle past the timeout; run periodically so abandoned sessions do not pile up. */
export function sweepIdleSessions(ctx: ControllerContext): number {
  const cutoff = new Date(ctx.clock.now().getTime() - ctx.config.sessionTimeoutSeconds * 1000);
  const removed = ctx.store.apiSessions.deleteIdleSince(cutoff);
  for (const { id, identityId } of removed) ctx.events.emit('apiSession.deleted', id, identityId);
  return removed.length;
}
