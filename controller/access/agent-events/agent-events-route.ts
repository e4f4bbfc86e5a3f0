/**
 * `GET /edge/client/v1/current-api-session/events`: pushed updates for an agent, as server-sent events, so
 * its service table, tray and tunnels change as soon as access does (the 20 s poll of service-updates stays
 * as the backstop). Events: `service-updates` when what the identity's services grant changed, and
 * `sessions-removed` when sessions of this API session were removed (their tunnels are being cut), and
 * `mfa-changed` when the identity's MFA was set up or removed anywhere (another device, the console, an
 * administrator's reset). The stream ends when the API session does. How many may be open per API session
 * and identity: EventStreamCaps.
 *
 * A partial session (one that still owes a TOTP code) may listen too: an agent waiting for a code must hear
 * that MFA was reset, and the events carry nothing about the identity beyond "look again".
 */
import type { Api } from '../../http/typed-app.js';
import type { ServerResponse } from 'node:http';
import { AGENT_EVENTS_PATH, type AgentEvent } from '../../../src/api/data-plane.js';
import { authOf } from '../../auth/guard.js';
import type { ControllerContext, ControllerEvents } from '../../platform/context.js';
import { errorResponses } from '../../../src/api/resources/envelopes.js';
import type { EventStreamCaps } from './event-stream-caps.js';

/** A comment line now and then keeps proxies from closing an idle stream and tells the agent it is alive. */
const HEARTBEAT_MS = 15_000;

export function registerAgentEvents(app: Api, ctx: ControllerContext, caps: EventStreamCaps): void {
  const open = new Set<ServerResponse>();
  // Fastify's close waits for open connections: end the streams first so shutdown never stalls on them.
  app.addHook('preClose', async () => {
    for (const response of open) response.end();
  });

  app.get(
    AGENT_EVENTS_PATH,
    {
      config: { access: 'partial' },
      schema: {
        tags: ['Current API Session'],
        description:
          'Server-sent events for the caller: service-updates, sessions-removed and mfa-changed (Postern)',
        response: {
          // Described for the API document; the stream is written by hand below (the reply is hijacked).
          200: {
            description:
              'A stream of server-sent events: `event: service-updates` (data {lastChangeAt}), `event: ' +
              'sessions-removed` (data {sessionIds}) and `event: mfa-changed` (data {}), each `data` one line ' +
              'of JSON; comment lines keep it alive. It ends when the API session does.',
            content: {
              'text/event-stream': {
                schema: { type: 'string', description: 'text/event-stream (HTML Living Standard, 9.2)' },
              },
            },
          },
          ...errorResponses(401, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const { session, identity } = authOf(request);
      // Before the stream starts: a refusal is an ordinary answer in the OpenZiti envelope.
      const release = caps.admit(session.id, identity.id);
      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      const send = (event: AgentEvent) =>
        response.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
      response.write(': postern agent events\n\n');

      const onAccess = (identityId: string, at: Date) => {
        if (identityId === identity.id)
          send({ event: 'service-updates', data: { lastChangeAt: at.toISOString() } });
      };
      const onRemoved: (...args: ControllerEvents['sessions.removed']) => void = (removed) => {
        const sessionIds = removed.filter((s) => s.apiSessionId === session.id).map((s) => s.id);
        if (sessionIds.length > 0) send({ event: 'sessions-removed', data: { sessionIds } });
      };
      const onMfaChanged = (identityId: string) => {
        if (identityId === identity.id) send({ event: 'mfa-changed', data: {} });
      };
      const onApiSessionDeleted = (apiSessionId: string) => {
        if (apiSessionId === session.id) response.end();
      };
      const heartbeat = setInterval(() => response.write(': keepalive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      ctx.events.on('access.changed', onAccess);
      ctx.events.on('sessions.removed', onRemoved);
      ctx.events.on('mfa.changed', onMfaChanged);
      ctx.events.on('apiSession.deleted', onApiSessionDeleted);
      open.add(response);
      response.on('close', () => {
        release();
        clearInterval(heartbeat);
        open.delete(response);
        ctx.events.off('access.changed', onAccess);
        ctx.events.off('sessions.removed', onRemoved);
        ctx.events.off('mfa.changed', onMfaChanged);
        ctx.events.off('apiSession.deleted', onApiSessionDeleted);
      });
    },
  );
}
