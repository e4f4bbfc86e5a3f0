/**
 * What each linked router is told. On link: a snapshot of the sessions it may carry and of every service's
 * `host.v1` target. Then, as the access outbox publishes after commit: sessions added (filtered by the edge
 * router policies), sessions removed (every router: a revocation must never be filtered away), and, after a
 * catalogue change (services, configs, routers, policies), a fresh snapshot, since a policy or config change
 * can change which sessions and targets a router may use. Lookups answer a router that was shown a token
 * before its push arrived.
 *
 * Order. Every message but a removal is read from the store before it is sent: on each link, such messages
 * go out in the order their reads started (a snapshot read before a session was added goes out before that
 * addition), so the last one sent is the freshest. A removal reads nothing and goes out at once, ahead of
 * anything still being read; the sessions it removed are then taken out of whatever was read before it and
 * is sent after it (a snapshot, an addition, a lookup's answer), so nothing revives a removed session.
 */
import type { ControllerToRouter } from '../../../src/api/data-plane.js';
import type { ControllerContext, ControllerEvents } from '../../platform/context.js';
import type { EdgeSession } from '../../store/posture-repository.js';
import { RouterLinkServer, type RouterLink } from './link-server.js';
import { toRouterSession, type Carriage, type RouterDirectory } from './router-directory.js';
import { tokenHashOf } from '../../platform/keys/session-tokens.js';
import type { Server } from 'node:http';

type Listener<K extends keyof ControllerEvents> = (...args: ControllerEvents[K]) => void | Promise<void>;

export function startRouterFeed(
  server: Server,
  ctx: ControllerContext,
  directory: RouterDirectory,
): { links: RouterLinkServer; close(): void } {
  const { store, events, log } = ctx;
  let closed = false;

  // Reads started so far, those whose messages are not all sent yet (oldest first), and the sessions removed
  // while some of them were: session id → `started` at its removal. A removal matters only to reads started
  // before it (later ones do not find the session), so it is forgotten once those are sent.
  let started = 0;
  const unsent = new Set<number>();
  const removed = new Map<string, number>();
  const forgetRemoved = () => {
    const oldest = unsent.values().next().value ?? started;
    for (const [id, at] of removed) {
      if (at > oldest) break;
      removed.delete(id);
    }
  };
  const withoutRemoved = (message: ControllerToRouter): ControllerToRouter | undefined => {
    if (removed.size === 0) return message;
    switch (message.t) {
      case 'snapshot':
        return { ...message, sessions: message.sessions.filter((s) => !removed.has(s.id)) };
      case 'session.added':
        return removed.has(message.session.id) ? undefined : message;
      case 'lookup.result':
        return message.session && removed.has(message.session.id)
          ? { ...message, session: null, service: null }
          : message;
      default:
        return message;
    }
  };

  /** Each link's messages in flight: the last one's promise, which the next one waits for before it sends. */
  const queues = new WeakMap<RouterLink, Promise<void>>();

  /**
   * Starts `read` now and sends, on each of `targets`, the messages `compose` makes of what it read for that
   * link, once what was started on the link before has been sent. Resolves when all of them are sent.
   */
  function deliver<R>(
    what: string,
    targets: readonly RouterLink[],
    read: () => Promise<R>,
    compose: (read: R, link: RouterLink) => ControllerToRouter[],
  ): Promise<void> {
    if (closed || targets.length === 0) return Promise.resolve();
    const work = started++;
    unsent.add(work);
    const result = (async () => ({ value: await read() }))().catch((err: unknown) => {
      log.error({ err }, `router feed: ${what} failed`);
      return undefined;
    });
    const sent = targets.map((link) => {
      const turn = (queues.get(link) ?? Promise.resolve())
        .then(async () => {
          const got = await result;
          if (!got) return;
          for (const message of compose(got.value, link)) {
            const kept = withoutRemoved(message);
            if (kept) link.send(kept);
          }
        })
        .catch((err: unknown) => log.error({ err, routerId: link.routerId }, `router feed: ${what} failed`));
      queues.set(link, turn);
      return turn;
    });
    return Promise.all(sent).then(() => {
      unsent.delete(work);
      forgetRemoved();
    });
  }

  /** Every session and service target, and which router may carry which session: one read for all links. */
  const readSnapshot = async () => {
    const [sessions, services] = await Promise.all([
      store.posture.sessions.all(),
      directory.serviceTargets(),
    ]);
    const mayCarry = await directory.carriage(sessions);
    return { sessions, wire: sessions.map(toRouterSession), services, mayCarry };
  };
  const snapshotFor = (
    read: {
      sessions: EdgeSession[];
      wire: ReturnType<typeof toRouterSession>[];
      services: Awaited<ReturnType<RouterDirectory['serviceTargets']>>;
      mayCarry: Carriage;
    },
    link: RouterLink,
  ): ControllerToRouter[] => [
    {
      t: 'snapshot',
      sessions: read.wire.filter((_, i) => read.mayCarry(link.routerId, read.sessions[i]!)),
      services: read.services,
    },
  ];

  const links = new RouterLinkServer(server, ctx, directory, {
    opened: (link) => deliver('snapshot', [link], readSnapshot, snapshotFor),
    closed: () => undefined,
    message: (link, message) => {
      // Frames arrive checked (link-messages.ts): a lookup's token has a token's shape.
      if (message.t === 'hello')
        return directory.recordListener(link.routerId, message.hostname, message.urls);
      if (message.t === 'lookup') {
        const { id, token } = message;
        return deliver(
          'lookup',
          [link],
          async () => {
            const found = await store.posture.sessions.getByTokenHash(tokenHashOf(token));
            if (!found) return undefined;
            const [mayCarry, service] = await Promise.all([
              directory.carriage([found]),
              directory.serviceTarget(found.serviceId),
            ]);
            return mayCarry(link.routerId, found) ? { session: found, service } : undefined;
          },
          (allowed) => [
            {
              t: 'lookup.result',
              id,
              session: allowed ? toRouterSession(allowed.session) : null,
              service: allowed ? allowed.service : null,
            },
          ],
        );
      }
    },
  });

  // A catalogue change may be published many times in a row (several emits in one transaction): one resync
  // for all of them, on the next turn. Its listeners are answered once that resync's snapshots are sent.
  let queuedResync: Promise<void> | undefined;
  const resync = (): Promise<void> => {
    queuedResync ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      queuedResync = undefined;
      if (closed) return;
      try {
        await links.dropUnauthorized();
      } catch (err) {
        log.error({ err }, 'router resync failed');
      }
      await deliver('resync', links.all(), readSnapshot, snapshotFor);
    });
    return queuedResync;
  };

  const listeners: { [K in keyof ControllerEvents]?: Listener<K> } = {
    'sessions.added': (ids) =>
      deliver(
        'sessions.added',
        links.all(),
        async () => {
          const added = await store.posture.sessions.getMany(ids);
          return { added, mayCarry: await directory.carriage(added) };
        },
        ({ added, mayCarry }, link) =>
          added
            .filter((session) => mayCarry(link.routerId, session))
            .map((session) => ({ t: 'session.added', session: toRouterSession(session) })),
      ),
    // Synchronous, reading nothing: the revocation goes out now, before anything still being read.
    'sessions.removed': (gone) => {
      const sessionIds = gone.map((s) => s.id);
      if (unsent.size > 0) for (const id of sessionIds) removed.set(id, started);
      for (const link of links.all()) link.send({ t: 'session.removed', sessionIds });
    },
    'policy.changed': resync,
  };
  for (const [name, fn] of Object.entries(listeners)) events.on(name as keyof ControllerEvents, fn as never);

  return {
    links,
    close() {
      closed = true;
      for (const [name, fn] of Object.entries(listeners))
        events.off(name as keyof ControllerEvents, fn as never);
      links.close();
    },
  };
}
