import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../context.js';
import { authOf } from '../../auth/guard.js';
import { deleteApiSession } from '../../auth/api-sessions.js';
import { detail, empty } from '../../http/envelope.js';
import { EmptyEnvelope, detailEnvelope, errorResponses } from '../../http/schemas.js';
import { CurrentApiSessionSchema } from '../../../src/api/schemas.js';
import { currentSessionToWire, sessionHeaders } from './session-view.js';
import { ClientIdentityDetail, IdentityDetail, identityToWire } from '../management/identities.js';

/**
 * The caller's own API session and identity, on the client and management APIs. They differ in one thing:
 * the client API's `/current-identity` shows outstanding enrollments without their token and JWT (see
 * enrollment-views.ts); an administrator sees them on the management API.
 */
export function registerCurrentSession(app: Api, ctx: ControllerContext, api: 'client' | 'management'): void {
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
      await deleteApiSession(ctx, authOf(request).session);
      return empty();
    },
  );

  app.get(
    '/current-identity',
    {
      config: { access: 'full' },
      schema: {
        tags: ['Current Identity'],
        response: {
          200: detailEnvelope(api === 'client' ? ClientIdentityDetail : IdentityDetail),
          ...errorResponses(401),
        },
      },
    },
    async (request) =>
      detail(await identityToWire(ctx, authOf(request).identity, api === 'client' ? 'summary' : 'secrets')),
  );
}
