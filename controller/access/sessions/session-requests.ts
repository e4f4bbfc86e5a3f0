/**
 * `POST /sessions`: an API session asks to Dial or Bind a service. Granted when one of the identity's
 * policies of that type selecting the service passes its posture checks; otherwise the refusal is recorded for
 * the administrator (the last 50 per identity), put on the audit trail (at most once a minute per identity and
 * service) and answered 409 INVALID_POSTURE carrying the audit event's reference.
 *
 * Unlike OpenZiti, an existing session for the same API session, service and type is returned only after
 * posture is checked again, so a stale session can never be handed out.
 */
import { randomUUID } from 'node:crypto';
import type { ControllerContext } from '../../platform/context.js';
import type { ApiSession, Identity, PolicyType } from '../../model.js';
import { confirmCaller, type Caller } from '../../auth/guard.js';
import { serializeAccessOf } from '../../store/access-lock.js';
import { ApiError, unauthorized, validationError } from '../../api-error.js';
import { isMissingReference } from '../../store/missing-reference.js';
import type { EdgeSession } from '../../store/posture-repository.js';
import type { PostureEngine } from '../engine/posture-engine.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import { isGranted } from '../decisions/remembered-decisions.js';
import { FAILED_REQUESTS_KEPT, failedRequest, invalidPosture } from '../decisions/failure-report.js';
import { tokenHashOf } from '../../platform/keys/session-tokens.js';
import { recordRefusedRequest } from '../../audit/refused-requests.js';

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

/** A session request's answer: the session granted, or the refusal (its failure record kept all the same). */
export type SessionOutcome =
  { created: EdgeSession; refused?: never } | { refused: ApiError; created?: never };

/**
 * Asks for a session in a transaction of its own (or the caller's); throws the refusal. For callers that
 * need no group commit; the route runs `decideSession` in its batch.
 */
export async function requestSession(
  ctx: ControllerContext,
  engine: PostureEngine,
  caller: Caller,
  serviceId: string,
  type: PolicyType,
): Promise<EdgeSession> {
  const outcome = await ctx.store.transaction(() => decideSession(ctx, engine, caller, serviceId, type));
  if (outcome.refused) throw outcome.refused;
  return outcome.created;
}

/**
 * Decides and, when granted, creates the session. Inside the caller's transaction (the route's group commit),
 * under the identity's access lock, with the caller confirmed again there (an API session ended, an identity
 * disabled or a password changed while the request was on its way refuses it here). A refusal is answered,
 * not thrown, so the transaction keeps its failure record. A catalogue change heard from another instance
 * while this was decided on the catalogue before it (PostgreSQL: the announcement arrives after that commit)
 * is caught by `settleAgainstCatalogue` once this commits.
 */
export async function decideSession(
  ctx: ControllerContext,
  engine: PostureEngine,
  caller: Caller,
  serviceId: string,
  type: PolicyType,
): Promise<SessionOutcome> {
  try {
    return { created: await grantOrRefuse(ctx, engine, caller, serviceId, type) };
  } catch (error) {
    if (error instanceof ApiError) return { refused: error };
    throw error;
  }
}

async function grantOrRefuse(
  ctx: ControllerContext,
  engine: PostureEngine,
  caller: Caller,
  serviceId: string,
  type: PolicyType,
): Promise<EdgeSession> {
  const { store } = ctx;
  await serializeAccessOf(store, caller.identity.id);
  const { session: apiSession, identity } = await confirmCaller(ctx, caller);
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

  const evaluation = await engine.evaluation(resolver, identity, apiSession.id);
  const decision = evaluation.access(identity, service, type);
  const now = evaluation.ctx.now;
  if (!decision.granted) {
    await store.posture.failures.add(
      identity.id,
      failedRequest(apiSession.id, service, type, decision.outcomes, now),
      FAILED_REQUESTS_KEPT,
    );
    // On the trail too (bounded per identity and service), with the reference the refusal carries.
    const reference = await recordRefusedRequest(
      ctx,
      identity,
      service,
      { type, apiSessionId: apiSession.id, decision },
      now,
    );
    ctx.log.info(
      { identityId: identity.id, serviceId, type, reference },
      'session refused: posture checks failed',
    );
    throw invalidPosture(decision.outcomes, reference);
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
    // The API session's posture row exists from login; this covers sessions made before the row did. The API
    // session was confirmed in this transaction, and the foreign keys refuse both rows if it ends meanwhile.
    await store.posture.data.updateApiSession(apiSession.id, identity.id, {});
    try {
      await store.posture.sessions.create(created);
    } catch (err) {
      // The API session ended between its confirmation and this write (a sweep or a cascade that takes no lock).
      if (isMissingReference(err)) throw unauthorized('The API session is unknown or has expired');
      throw err;
    }
    return created;
  });
}

/**
 * After a granted session committed: when the catalogue moved since `decidedAt` (another instance's change
 * heard meanwhile, or one of this instance's), the identity is evaluated again on the new catalogue, which
 * revokes the session if it no longer holds. Answers whether the session still stands.
 */
export async function settleAgainstCatalogue(
  ctx: ControllerContext,
  engine: PostureEngine,
  session: EdgeSession,
  decidedAt: number,
): Promise<boolean> {
  if (ctx.store.catalogueVersion() === decidedAt) return true;
  await engine.evaluateIdentity(session.identityId);
  return (await ctx.store.posture.sessions.get(session.id)) !== undefined;
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
