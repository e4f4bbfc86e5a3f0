/**
 * Connects the controller's events to the posture engine. Listeners run after the emitting transaction has
 * committed (ControllerEventBus holds events until then), each catching its own errors: a posture hiccup must never
 * undo the identity, policy or MFA change that triggered it.
 */
import type { ControllerContext, ControllerEvents } from '../../context.js';
import { AccessResolver } from '../access/access-resolver.js';
import type { PostureEngine } from './posture-engine.js';

/** Identities re-evaluated per turn of the event loop by a background refresh. */
const REFRESH_CHUNK = 200;

type Listener<K extends keyof ControllerEvents> = (...args: ControllerEvents[K]) => void;

export function wirePostureEvents(ctx: ControllerContext, engine: PostureEngine): { close(): void } {
  const { store, events, log } = ctx;
  const guarded =
    <K extends keyof ControllerEvents>(name: K, fn: Listener<K>): Listener<K> =>
    (...args) => {
      try {
        fn(...args);
      } catch (err) {
        log.error({ err, event: name, args }, 'posture evaluation failed while handling an event');
      }
    };

  // A policy, service or check change can affect anyone. Identities holding edge sessions are re-evaluated at
  // once, so a revocation is in place before the admin's request is answered; the others only need their
  // timers and lastChangeAt refreshed, which happens in the background in chunks so a change never stalls the
  // event loop. A newer change restarts the background pass (it covers the same identities).
  let generation = 0;
  let pending = false;
  let background: ReturnType<typeof setImmediate> | undefined;
  let closed = false;

  const refreshAll = (forceChange: boolean) => {
    generation++;
    if (background) clearImmediate(background);
    const resolver = new AccessResolver(store);
    const holders = store.posture.sessions.identitiesWithSessions();
    // One transaction per batch: one commit (one fsync) instead of one per identity.
    const evaluateAll = (ids: readonly string[], batchResolver: AccessResolver) =>
      store.transaction(() => {
        for (const identityId of ids) {
          guarded('policy.changed', () =>
            engine.evaluateIdentity(identityId, { resolver: batchResolver, forceChange }),
          )();
        }
      });
    evaluateAll(holders, resolver);
    const done = new Set(holders);
    const rest = store.posture.data.identitiesWithApiSessions().filter((id) => !done.has(id));
    const mine = generation;
    const step = (from: number) => {
      background = undefined;
      if (closed || mine !== generation || from >= rest.length) return;
      evaluateAll(rest.slice(from, from + REFRESH_CHUNK), new AccessResolver(store));
      background = setImmediate(() => step(from + REFRESH_CHUNK));
    };
    step(0);
  };

  const listeners: { [K in keyof ControllerEvents]?: Listener<K> } = {
    'apiSession.created': guarded('apiSession.created', (apiSessionId, identityId) => {
      const sdkInfo = store.apiSessions.get(apiSessionId)?.sdkInfo ?? null;
      store.posture.data.updateApiSession(apiSessionId, identityId, { sdkInfo });
      engine.evaluateIdentity(identityId);
    }),
    'apiSession.deleted': guarded('apiSession.deleted', (apiSessionId) =>
      engine.forgetApiSession(apiSessionId),
    ),
    'identity.changed': guarded('identity.changed', (identityId) => engine.evaluateIdentity(identityId)),
    'identity.deleted': guarded('identity.deleted', (identityId) => engine.forgetIdentity(identityId)),
    // Possibly several per request (released after its commit): coalesced into one
    // refresh that runs after the transaction has committed but before the response goes out.
    'policy.changed': guarded('policy.changed', () => {
      if (pending) return;
      pending = true;
      queueMicrotask(() => {
        pending = false;
        if (!closed) refreshAll(true);
      });
    }),
    'mfa.passed': guarded('mfa.passed', (apiSessionId, identityId) => {
      store.posture.data.updateApiSession(apiSessionId, identityId, { mfaPassedAt: ctx.clock.now() });
      engine.evaluateIdentity(identityId);
    }),
    'mfa.removed': guarded('mfa.removed', (identityId) => {
      store.posture.data.clearMfa(identityId);
      engine.evaluateIdentity(identityId);
    }),
  };
  for (const [name, fn] of Object.entries(listeners)) events.on(name as keyof ControllerEvents, fn as never);

  // Start: drop what belongs to API sessions that ended while the controller was down, then re-arm timers and
  // revoke what expired in the meantime.
  const live = (id: string) => store.apiSessions.get(id) !== undefined;
  store.posture.sessions.deleteOrphans(live);
  store.posture.data.deleteOrphans(live);
  refreshAll(false);

  return {
    close() {
      closed = true;
      if (background) clearImmediate(background);
      for (const [name, fn] of Object.entries(listeners))
        events.off(name as keyof ControllerEvents, fn as never);
    },
  };
}
