/**
 * What each linked router is told. On link: a snapshot of the sessions it may carry and of every service's
 * `host.v1` target. Then, as the access outbox publishes after commit: sessions added (filtered by the edge
 * router policies), sessions removed (every router: a revocation must never be filtered away), and, after a
 * catalogue change (services, configs, routers, policies), a fresh snapshot, since a policy or config change
 * can change which sessions and targets a router may use. Lookups answer a router that was shown a token
 * before its push arrived.
 */
import type { RouterSession } from '../../src/api/data-plane.js';
import type { ControllerContext, ControllerEvents } from '../context.js';
import { RouterLinkServer, type RouterLink } from './link-server.js';
import { toRouterSession, type RouterDirectory } from './router-directory.js';
import type { Server } from 'node:http';

type Listener<K extends keyof ControllerEvents> = (...args: ControllerEvents[K]) => void;

export function startRouterFeed(
  server: Server,
  ctx: ControllerContext,
  directory: RouterDirectory,
): { links: RouterLinkServer; close(): void } {
  const { store, events, log } = ctx;

  const snapshotFor = (link: RouterLink) => {
    const sessions: RouterSession[] = store.posture.sessions
      .all()
      .filter((s) => directory.mayCarry(link.routerId, s.identityId, s.serviceId))
      .map(toRouterSession);
    link.send({ t: 'snapshot', sessions, services: directory.serviceTargets() });
  };

  const links = new RouterLinkServer(server, ctx, directory, {
    opened: (link) => snapshotFor(link),
    closed: () => undefined,
    message: (link, message) => {
      if (message.t === 'hello') {
        directory.recordListener(link.routerId, String(message.hostname), message.urls ?? {});
      } else if (message.t === 'lookup' && typeof message.token === 'string') {
        const found = store.posture.sessions.getByToken(message.token);
        const allowed = found && directory.mayCarry(link.routerId, found.identityId, found.serviceId);
        link.send({
          t: 'lookup.result',
          id: message.id,
          session: allowed ? toRouterSession(found) : null,
          service: allowed ? directory.serviceTarget(found.serviceId) : null,
        });
      }
    },
  });

  // A catalogue change is emitted inside its transaction, maybe many times: one resync after it commits.
  let resyncQueued = false;
  const resync = () => {
    if (resyncQueued) return;
    resyncQueued = true;
    setImmediate(() => {
      resyncQueued = false;
      try {
        links.dropUnauthorized();
        for (const link of links.all()) snapshotFor(link);
      } catch (err) {
        log.error({ err }, 'router resync failed');
      }
    });
  };

  const listeners: { [K in keyof ControllerEvents]?: Listener<K> } = {
    'sessions.added': (ids) => {
      const added = store.posture.sessions.getMany(ids);
      for (const link of links.all())
        for (const session of added)
          if (directory.mayCarry(link.routerId, session.identityId, session.serviceId))
            link.send({ t: 'session.added', session: toRouterSession(session) });
    },
    'sessions.removed': (removed) => {
      const sessionIds = removed.map((s) => s.id);
      for (const link of links.all()) link.send({ t: 'session.removed', sessionIds });
    },
    'policy.changed': resync,
  };
  for (const [name, fn] of Object.entries(listeners)) events.on(name as keyof ControllerEvents, fn as never);
  ctx.routerPresence = { isOnline: (id) => links.isOnline(id) };

  return {
    links,
    close() {
      for (const [name, fn] of Object.entries(listeners))
        events.off(name as keyof ControllerEvents, fn as never);
      links.close();
    },
  };
}
