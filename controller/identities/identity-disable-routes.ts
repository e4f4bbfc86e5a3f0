/**
 * OpenZiti's `POST /identities/:id/disable` (`durationMinutes`: 0 until enabled, N for N minutes) and
 * `POST /identities/:id/enable`, as ZAC's identity page sends them. A disable ends the identity's API
 * sessions, edge sessions and tunnels at once, as PATCH `disabled: true` does (IdentityService.setDisabled).
 */
import { Type } from '@sinclair/typebox';
import type { Api } from '../http/typed-app.js';
import { empty } from '../http/envelope.js';
import { EmptyEnvelope, IdParams, errorResponses } from '../../src/api/resources/envelopes.js';
import type { IdentityService } from './identity-service.js';

/** Ten years: any longer is "until enabled" (0), and the end must stay a date JavaScript can write. */
export const MAX_DISABLE_MINUTES = 10 * 365 * 24 * 60;

const DisableBody = Type.Object(
  {
    durationMinutes: Type.Integer({
      minimum: 0,
      maximum: MAX_DISABLE_MINUTES,
      description: 'minutes the identity stays disabled; 0: until it is enabled',
    }),
  },
  { additionalProperties: false },
);

export function registerIdentityDisableRoutes(app: Api, service: IdentityService): void {
  app.post(
    '/identities/:id/disable',
    {
      schema: {
        tags: ['Identity'],
        description:
          'Disables the identity for durationMinutes (0: until enabled); its API sessions, sessions and tunnels end',
        params: IdParams,
        body: DisableBody,
        response: { 200: EmptyEnvelope, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      await service.setDisabled(request.params.id, request.body.durationMinutes);
      return empty();
    },
  );
  app.post(
    '/identities/:id/enable',
    {
      schema: {
        tags: ['Identity'],
        description: 'Enables a disabled identity (a timed disable ends early)',
        params: IdParams,
        response: { 200: EmptyEnvelope, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      await service.setDisabled(request.params.id, null);
      return empty();
    },
  );
}
