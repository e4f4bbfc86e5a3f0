/**
 * Management API for edge routers: `edge-routers` (create answers the one-time enrollment token; the detail
 * shows it and its JWT until the router enrolls; `POST /edge-routers/:id/re-enroll` issues a new one and
 * forgets the old enrollment), and the two policy kinds in `router-policy-routes.ts`.
 */
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouterService } from './edge-router-service.js';
import type { EdgeRouter } from '../model.js';
import { notFound } from '../api-error.js';
import { detail, entityBase } from '../http/envelope.js';
import {
  EdgeRouterBodies,
  EdgeRouterDetail,
  RouterEnrollmentShown,
} from '../../src/api/resources/edge-routers.js';
import { IdParams, detailEnvelope, errorResponses } from '../../src/api/resources/envelopes.js';
import { registerCrud, pick } from '../http/crud.js';
import { normaliseAttributes } from '../catalogue/roles.js';
import { issueEnrollment } from './router-tokens.js';
import { registerRouterPolicyRoutes } from './router-policy-routes.js';
import type { EnrollmentAuthority } from '../enrollment/enrollment-authority.js';

/**
 * A router as the management API shows it. Until it enrolls, its token and `erott` JWT show on the detail
 * (as OpenZiti's do, so an administrator can enroll it from ZAC); a token drawn at random (a router made
 * before tokens were derived) shows only in the answer that created it.
 */
export function edgeRouterWire(edgeRouters: EdgeRouterService, authority: EnrollmentAuthority) {
  return (r: EdgeRouter) => {
    const isOnline = edgeRouters.isOnline(r.id);
    const outstanding = r.enrollmentTokenHash !== null;
    const derivable = outstanding && r.enrollmentNonce ? r.enrollmentNonce : null;
    return {
      ...entityBase('edge-routers', r),
      roleAttributes: r.roleAttributes,
      disabled: r.disabled,
      cost: r.cost,
      noTraversal: r.noTraversal,
      isTunnelerEnabled: r.isTunnelerEnabled,
      appData: r.appData,
      hostname: r.hostname,
      supportedProtocols: r.supportedProtocols,
      isOnline,
      syncStatus: isOnline ? 'SYNC_DONE' : 'SYNC_UNKNOWN',
      isVerified: r.isVerified,
      fingerprint: r.fingerprint,
      certPem: r.certPem,
      enrollmentToken: derivable ? authority.routerToken(r.id, derivable) : null,
      enrollmentJwt: derivable ? authority.routerJwtOf(r) : null,
      enrollmentCreatedAt: outstanding ? r.enrollmentCreatedAt : null,
      enrollmentExpiresAt: outstanding ? r.enrollmentExpiresAt : null,
    };
  };
}

export function registerEdgeRouterRoutes(
  app: Api,
  ctx: ControllerContext,
  edgeRouters: EdgeRouterService,
  authority: EnrollmentAuthority,
): void {
  const { store } = ctx;
  // A created router's token, for the create answer (the detail derives it again while it is outstanding).
  const shownOnce = new WeakMap<EdgeRouter, { token: string; expiresAt: string }>();
  const toWire = edgeRouterWire(edgeRouters, authority);
  const derive = (id: string, nonce: string) => authority.routerToken(id, nonce);

  registerCrud<EdgeRouter>(app, ctx, {
    collection: 'edge-routers',
    tag: 'Edge Router',
    repo: store.edgeRouters,
    schemas: {
      ...EdgeRouterBodies,
      detail: EdgeRouterDetail,
    },
    toWire,
    build(body, mode, existing, id, now) {
      const base = {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        roleAttributes: normaliseAttributes(
          pick(body, 'roleAttributes', mode, existing?.roleAttributes, []) ?? [],
        ),
        disabled: pick(body, 'disabled', mode, existing?.disabled, false),
        cost: pick(body, 'cost', mode, existing?.cost, 0),
        noTraversal: pick(body, 'noTraversal', mode, existing?.noTraversal, false),
        isTunnelerEnabled: pick(body, 'isTunnelerEnabled', mode, existing?.isTunnelerEnabled, false),
        appData: pick(body, 'appData', mode, existing?.appData, {}),
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      if (existing) return { ...existing, ...base };
      const enrollment = issueEnrollment(ctx, now, id, derive);
      const router: EdgeRouter = { ...base, hostname: '', supportedProtocols: {}, ...enrollment.fields };
      shownOnce.set(router, { token: enrollment.token, expiresAt: enrollment.expiresAt });
      return router;
    },
    created: {
      schema: RouterEnrollmentShown,
      extra: (router) => {
        const shown = shownOnce.get(router)!;
        return { enrollmentToken: shown.token, enrollmentExpiresAt: shown.expiresAt };
      },
    },
    afterWrite: () => void ctx.events.emit('policy.changed'),
  });

  app.post(
    '/edge-routers/:id/re-enroll',
    {
      schema: {
        tags: ['Edge Router'],
        params: IdParams,
        response: { 200: detailEnvelope(RouterEnrollmentShown.properties.data), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const now = ctx.clock.now();
      const enrollment = issueEnrollment(ctx, now, id, derive);
      // The old certificate and secret stop working at once: the router must enroll again. The event is
      // published once this commits, and the transaction resolves after its listeners, so the router's link
      // is already cut when this answers.
      await store.transaction(async () => {
        const router = await store.edgeRouters.get(id);
        if (!router) throw notFound(`edge-routers/${id}`);
        await store.edgeRouters.update({ ...router, ...enrollment.fields, updatedAt: now });
        ctx.events.emit('policy.changed');
      });
      return detail({
        id,
        _links: { self: { href: `./edge-routers/${id}` } },
        enrollmentToken: enrollment.token,
        enrollmentExpiresAt: enrollment.expiresAt,
      });
    },
  );

  registerRouterPolicyRoutes(app, ctx);
}
