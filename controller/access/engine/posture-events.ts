/**
 * Connects the controller's events to the posture engine. Listeners run after the emitting transaction has
 * committed (ControllerEventBus holds events until then), each catching its own errors: a posture hiccup must never
 * undo the identity, policy or MFA change that triggered it.
 */
import type { ControllerContext, ControllerEvents } from '../../platform/context.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import type { PostureEngine } from './posture-engine.js';

/** Identities re-evaluated per turn of the event loop by a background refresh. */
const REFRESH_CHUNK = 200;

type Listener<K extends keyof ControllerEvents> = (...args: ControllerEvents[K]) => Promise<void>;

export function wirePostureEvents(
  ctx: ControllerContext,
  engine: PostureEngine,
): { started: Promise<void>; close(): void } {
  const { store, events, log } = ctx;
  const guarded =
    <K extends keyof ControllerEvents>(name: K, fn: Listener<K>): Listener<K> =>
    async (...args) => {
      try {
        await fn(...args);
      } catch (err) {
        log.error({ err, event: name, args }, 'posture evaluation failed while handling an event');
      }
    };

  // A policy, service or check change can affect anyone. Identities holding edge sessions are re-evaluated at
  // once, so a revocation is in place before the admin's request is answered (its transaction awaits this);
  // the others only need their timers and lastChangeAt refreshed, which happens in the background in chunks so
  // a change never stalls the event loop. A newer change restarts the background pass (it covers the same
  // identities).
  let generation = 0;
  let pending: Promise<void> | undefined;
  /** whether a change made here is among those the pending refresh covers */
  let forceChange = false;
  let background: ReturnType<typeof setImmediate> | undefined;
  let closed = false;

  // One transaction per batch: one commit (one fsync) instead of one per identity.
  const evaluateAll = (ids: readonly string[], resolver: AccessResolver, forceChange: boolean) =>
    store.transaction(async () => {
      for (const identityId of ids)
        await guarded('policy.changed', () =>
          engine.evaluateIdentity(identityId, { resolver, forceChange }),
        )();
    });

  const refreshAll = async (forceChange: boolean) => {
    const mine = ++generation;
    if (background) clearImmediate(background);
    const holders = await store.posture.sessions.identitiesWithSessions();
    await evaluateAll(holders, await AccessResolver.of(store), forceChange);
    const done = new Set(holders);
    const rest = (await store.posture.data.identitiesWithApiSessions()).filter((id) => !done.has(id));
    const step = async (from: number) => {
      background = undefined;
      if (closed || mine !== generation || from >= rest.length) return;
      await evaluateAll(rest.slice(from, from + REFRESH_CHUNK), await AccessResolver.of(store), forceChange);
      background = setImmediate(() => void guarded('policy.changed', () => step(from + REFRESH_CHUNK))());
    };
    await step(0);
  };

  const listeners: { [K in keyof ControllerEvents]?: Listener<K> } = {
    'apiSession.created': guarded('apiSession.created', async (apiSessionId, identityId) => {
      const sdkInfo = (await store.apiSessions.get(apiSessionId))?.sdkInfo ?? null;
      await store.posture.data.updateApiSession(apiSessionId, identityId, { sdkInfo });
      await engine.evaluateIdentity(identityId);
    }),
    'apiSession.deleted': guarded('apiSession.deleted', (apiSessionId) =>
      engine.forgetApiSession(apiSessionId),
    ),
    'identity.changed': guarded('identity.changed', (identityId) => engine.evaluateIdentity(identityId)),
    'identity.deleted': guarded('identity.deleted', (identityId) => engine.forgetIdentity(identityId)),
    // Possibly several per request (published together after its commit): coalesced into one refresh, which
    // runs after the transaction has committed and which the request awaits before it answers.
    // A change heard from another instance re-decides the sessions here too (that instance may not yet see
    // the sessions this one is granting); it marks the identities' services as changed itself.
    'policy.changed': guarded('policy.changed', (origin) => {
      if (origin !== 'elsewhere') forceChange = true;
      pending ??= new Promise<void>((resolve) => queueMicrotask(resolve)).then(() => {
        pending = undefined;
        const force = forceChange;
        forceChange = false;
        return closed ? undefined : refreshAll(force);
      });
      return pending;
    }),
    'mfa.passed': guarded('mfa.passed', async (apiSessionId, identityId) => {
      await store.posture.data.updateApiSession(apiSessionId, identityId, { mfaPassedAt: ctx.clock.now() });
      await engine.evaluateIdentity(identityId);
    }),
    'mfa.removed': guarded('mfa.removed', async (identityId) => {
      await store.posture.data.clearMfa(identityId);
      await engine.evaluateIdentity(identityId);
    }),
  };
  for (const [name, fn] of Object.entries(listeners)) events.on(name as keyof ControllerEvents, fn as never);

  // Start: drop what belongs to API sessions that ended while the controller was down, then re-arm timers and
  // revoke what expired in the meantime.
  const started = (async () => {
    await store.posture.sessions.deleteOrphans();
    await store.posture.data.deleteOrphans();
    await refreshAll(false);
  })();

  return {
    started,
    close() {
      closed = true;
      if (background) clearImmediate(background);
      for (const [name, fn] of Object.entries(listeners))
        events.off(name as keyof ControllerEvents, fn as never);
    },
  };
}
