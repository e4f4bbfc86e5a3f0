import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { authOf } from '../auth/guard.js';
import { detail } from '../http/envelope.js';
import { detailEnvelope, errorResponses } from '../../src/api/resources/envelopes.js';
import { ClientIdentityDetail, IdentityDetail } from '../../src/api/resources/identities.js';
import { identityToWire } from './identity-routes.js';
import type { EnrollmentAuthority } from '../enrollment/enrollment-authority.js';

/**
 * The caller's own identity, on the client and management APIs. They differ in one thing: the client API's
 * `/current-identity` shows outstanding enrollments without their token and JWT (see enrollment-views.ts); an
 * administrator sees them on the management API.
 */
export function registerCurrentIdentity(
  app: Api,
  ctx: ControllerContext,
  api: 'client' | 'management',
  enrollment: EnrollmentAuthority,
): void {
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
    async (request) => {
      const audience = api === 'client' ? 'summary' : 'secrets';
      return detail(await identityToWire(ctx, authOf(request).identity, audience, enrollment));
    },
  );
}
