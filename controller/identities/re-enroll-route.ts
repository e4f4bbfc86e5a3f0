/**
 * `POST /authenticators/<id>/re-enroll`, as OpenZiti has it (ZAC's "Reset enrollment" on an identity): the
 * authenticator is deleted and an enrollment of its kind made in the same transaction (`updb`: a `updb`
 * enrollment for the same username; `cert`: an `ott` one), so the identity is never left with both or
 * neither; its API sessions end (but the caller's), as when the authenticator is deleted. Answers the
 * enrollment's id, as OpenZiti's create envelope.
 */
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { authOf } from '../auth/guard.js';
import { recordAdminChange } from '../audit/admin-changes.js';
import { created } from '../http/envelope.js';
import { CreateEnvelope, IdParams, errorResponses } from '../../src/api/resources/envelopes.js';
import { ReEnrollSchema } from '../../src/api/schemas-enrollment.js';
import type { EnrollmentAuthority } from '../enrollment/enrollment-authority.js';
import { addEnrollment } from '../enrollment/identity-enrollment.js';
import { enrollmentExpiry } from '../enrollment/enrollment-expiry.js';
import type { AuthenticatorService } from './authenticator-service.js';

export function registerReEnroll(
  app: Api,
  ctx: ControllerContext,
  authority: EnrollmentAuthority,
  authenticators: AuthenticatorService,
): void {
  app.post(
    '/authenticators/:id/re-enroll',
    {
      schema: {
        tags: ['Authenticator'],
        description:
          'Replaces the authenticator with an enrollment of its kind (updb: a updb enrollment for the same ' +
          "username; cert: an ott enrollment) and ends the identity's API sessions; answers the enrollment",
        params: IdParams,
        body: ReEnrollSchema,
        response: { 201: CreateEnvelope, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const expiresAt = enrollmentExpiry(ctx, request.body.expiresAt);
      const enrollment = await ctx.store.transaction(async () => {
        const existing = await authenticators.load(request.params.id);
        await authenticators.delete(existing.id, authOf(request).session.id, (b, a) =>
          recordAdminChange(ctx, request, 'authenticators', 'delete', b, a),
        );
        const updb = existing.method === 'updb';
        return addEnrollment(
          ctx,
          authority,
          existing.identityId,
          { method: updb ? 'updb' : 'ott', username: updb ? existing.username : null },
          { expiresAt, usernameField: 'username' },
        );
      });
      return reply.status(201).send(created('enrollments', enrollment.id));
    },
  );
}
