/**
 * `POST /sessions`: an API session asks to Dial or Bind a service. Granted when one of the identity's
 * policies of that type selecting the service passes its posture checks; otherwise the refusal is recorded for
 * the administrator (the last 50 per identity) and answered 409 INVALID_POSTURE.
 *
 * Unlike OpenZiti, an existing session for the same API session, service and type is returned only after
 * posture is checked again, so a stale session can never be handed out.
 */
import { randomUUID } from 'node:crypto';
import type { ControllerContext } from '../../context.js';
import type { ApiSession, Identity, PolicyType } from '../../model.js';
import { validationError } from '../../http/api-error.js';
import type { EdgeSession } from '../posture-repository.js';
import type { PostureEngine } from '../engine/posture-engine.js';
import { AccessResolver } from './access-resolver.js';
import { isGranted } from './remembered-decisions.js';
import { FAILED_REQUESTS_KEPT, failedRequest, invalidPosture } from './failure-report.js';
import { tokenHashOf } from './session-tokens.js';

/**
 * The caller's existing session for this service and type, when posture still grants it: decided outside any
 * transaction, as handing out an existing session writes nothing (a revocation racing it deletes the session
 * all the same). Undefined when there is none or access is refused: `requestSession` then decides again inside
 * its transaction, where a new session is created or the refusal recorded. Undefined as well when this
 * controller cannot hand out the session's token (made under another master key): `requestSession` re-keys it.
 */
export async function existingGrantedSession(
  ctx: ControllerContext,
  caller: { session: ApiSession; identity: Identity },
  serviceId: string,
  type: PolicyType,
): Promise<EdgeSession | undefined> {
  const existing = await ctx.store.posture.sessions.find(caller.session.id, serviceId, type);
  if (!existing || !ctx.sessionTokens.reissues(existing)) return undefined;
  const resolver = await AccessResolver.of(ctx.store);
  const service = resolver.service(serviceId);
  if (!service) return undefined;
  const data = await ctx.store.posture.data.load(caller.identity.id);
  const now = ctx.clock.now();
  return isGranted(resolver, data, caller.identity, caller.session.id, service, type, now)
    ? existing
    : undefined;
}

export async function requestSession(
  ctx: ControllerContext,
  engine: PostureEngine,
  caller: { session: ApiSession; identity: Identity },
  serviceId: string,
  type: PolicyType,
): Promise<EdgeSession> {
  const { store } = ctx;
  const { session: apiSession, identity } = caller;
  const resolver = await AccessResolver.of(store);
  const service = resolver.service(serviceId);
  // An unknown service and one the identity may not use look the same, so ids cannot be probed.
  if (!service || resolver.policiesFor(identity, service, type).length === 0) {
    throw validationError([
      {
        field: 'serviceId',
        reason: `no service with this id that the identity may ${type}`,
        value: serviceId,
      },
    ]);
  }

  const evaluation = await engine.evaluation(resolver, identity.id, apiSession.id);
  const decision = evaluation.access(identity, service, type);
  const now = evaluation.ctx.now;
  if (!decision.granted) {
    await store.posture.failures.add(
      identity.id,
      failedRequest(apiSession.id, service, type, decision.outcomes, now),
      FAILED_REQUESTS_KEPT,
    );
    ctx.log.info({ identityId: identity.id, serviceId, type }, 'session refused: posture checks failed');
    throw invalidPosture(decision.outcomes);
  }

  return store.transaction(async () => {
    const existing = await store.posture.sessions.find(apiSession.id, service.id, type);
    if (existing) return reissuable(ctx, existing);
    const id = randomUUID();
    const created: EdgeSession = {
      id,
      tokenHash: tokenHashOf(ctx.sessionTokens.tokenOf(id)),
      identityId: identity.id,
      apiSessionId: apiSession.id,
      serviceId: service.id,
      type,
      createdAt: now,
      updatedAt: now,
    };
    // The API session's posture row exists from login; this covers sessions made before the row did.
    await store.posture.data.updateApiSession(apiSession.id, identity.id, {});
    await store.posture.sessions.create(created);
    return created;
  });
}

/**
 * The session with a token this controller can hand out. One made under another master key (an upgraded
 * session whose random token was hashed in migration, or another instance of the database started without the
 * shared key) gets the token this controller derives: routers learn its hash by lookup, and streams already
 * open go on (they are tracked by session id).
 */
async function reissuable(ctx: ControllerContext, session: EdgeSession): Promise<EdgeSession> {
  if (ctx.sessionTokens.reissues(session)) return session;
  const tokenHash = tokenHashOf(ctx.sessionTokens.tokenOf(session.id));
  await ctx.store.posture.sessions.setTokenHash(session.id, tokenHash);
  ctx.log.warn(
    { sessionId: session.id },
    'edge session re-keyed: its token was not derived under this master key (made before the upgrade to hashed ' +
      'tokens, or by an instance with another key: instances of one database must share POSTERN_MASTER_KEY)',
  );
  return { ...session, tokenHash };
}
