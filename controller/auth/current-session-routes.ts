import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { authOf } from './guard.js';
import { deleteApiSession } from './api-sessions.js';
import { detail, empty } from '../http/envelope.js';
import { EmptyEnvelope, detailEnvelope, errorResponses } from '../../src/api/resources/envelopes.js';
import { CurrentApiSessionSchema } from '../../src/api/schemas.js';
import { currentSessionToWire, sessionHeaders } from './session-view.js';

/** The caller's own API session, on the client and management APIs alike. */
export function registerCurrentSession(app: Api, ctx: ControllerContext): void {
  const tags = ['Current API Session'];
  app.get(
    '/current-api-session',
    {
      config: { access: 'partial' },
      schema: { tags, response: { 200: detailEnvelope(CurrentApiSessionSchema), ...errorResponses(401) } },
    },
    async (request, reply) => {
      const { session, identity, token } = authOf(request);
      return reply
        .headers(sessionHeaders(ctx, session))
        .send(detail(await currentSessionToWire(ctx, session, identity, token)));
    },
  );

  app.delete(
    '/current-api-session',
    {
      config: { access: 'partial' },
      schema: { tags, response: { 200: EmptyEnvelope, ...errorResponses(401) } },
    },
    async (request) => {
      const { session, identity } = authOf(request);
      await deleteApiSession(ctx, session, {
        cause: 'logout',
        actor: { id: identity.id, name: identity.name },
        address: request.ip,
      });
      return empty();
    },
  );
}
