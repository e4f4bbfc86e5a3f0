/**
 * Client API routes for routers: `POST /enroll/erott`, where a router redeems its one-time token with its
 * certificate (public: routers are not identities), and `GET /current-identity/edge-routers`.
 */
import type { Api } from '../http/typed-app.js';
import { X509Certificate } from 'node:crypto';
import {
  IdentityRouterDetail,
  RouterEnrollBody,
  RouterEnrollReply,
} from '../../src/api/resources/edge-routers.js';
import { normaliseFingerprint, ROUTER_ENROLL_PATH } from '../../src/api/data-plane.js';
import { authOf } from '../auth/guard.js';
import type { ControllerContext } from '../platform/context.js';
import { ApiError, rateLimited, validationError } from '../api-error.js';
import { detail, list } from '../http/envelope.js';
import { detailEnvelope, errorResponses, listEnvelope } from '../../src/api/resources/envelopes.js';
import type { EdgeRouterService } from './edge-router-service.js';
import { newSecret, sha256Hex } from './router-tokens.js';

const invalidToken = (why: string) =>
  new ApiError(401, 'INVALID_ENROLLMENT_TOKEN', `The enrollment token is not valid: ${why}`);

export function registerRouterClientRoutes(
  app: Api,
  ctx: ControllerContext,
  edgeRouters: EdgeRouterService,
): void {
  const limiter = ctx.routerEnrollLimiter;

  app.post(
    ROUTER_ENROLL_PATH,
    {
      config: { access: 'public' },
      schema: {
        tags: ['Enroll'],
        description: 'An edge router redeems its one-time enrollment token with its TLS certificate',
        body: RouterEnrollBody,
        response: { 200: detailEnvelope(RouterEnrollReply), ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const wait = await limiter.retryAfterMs(request.ip);
      if (wait > 0) throw rateLimited(wait / 1000);
      const { token, certPem } = request.body;
      let fingerprint: string;
      try {
        fingerprint = normaliseFingerprint(new X509Certificate(certPem).fingerprint256);
      } catch {
        throw validationError([{ field: 'certPem', reason: 'not a PEM X.509 certificate' }]);
      }
      const hash = sha256Hex(token);
      const secret = newSecret();
      const now = ctx.clock.now();
      // Find and redeem in one transaction: of two parallel redemptions, exactly one wins.
      const outcome = await ctx.store.transaction(async () => {
        const router = (
          await ctx.store.edgeRouters.list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 })
        ).items.find((r) => r.enrollmentTokenHash === hash);
        if (!router) return { error: 'unknown, or already used' };
        if (!router.enrollmentExpiresAt || Date.parse(router.enrollmentExpiresAt) <= now.getTime())
          return { error: `expired at ${router.enrollmentExpiresAt}` };
        const enrolled = {
          ...router,
          enrollmentTokenHash: null,
          enrollmentNonce: null,
          isVerified: true,
          certPem,
          fingerprint,
          secretHash: sha256Hex(secret),
          updatedAt: now,
        };
        await ctx.store.edgeRouters.update(enrolled);
        ctx.events.emit('policy.changed');
        return { router: enrolled };
      });
      if ('error' in outcome) {
        await limiter.recordFailure(request.ip);
        request.log.info({ ip: request.ip }, 'router enrollment refused');
        throw invalidToken(outcome.error!);
      }
      request.log.info({ edgeRouterId: outcome.router.id, fingerprint }, 'edge router enrolled');
      return detail({ edgeRouterId: outcome.router.id, name: outcome.router.name, secret });
    },
  );

  app.get(
    '/current-identity/edge-routers',
    {
      schema: {
        tags: ['Current Identity'],
        response: { 200: listEnvelope(IdentityRouterDetail), ...errorResponses(401) },
      },
    },
    async (request) => {
      const routers = (await edgeRouters.routersOfIdentity(authOf(request).identity)).map((r) =>
        edgeRouters.toIdentityWire(r),
      );
      return list(routers, { limit: routers.length, offset: 0, totalCount: routers.length });
    },
  );
}
