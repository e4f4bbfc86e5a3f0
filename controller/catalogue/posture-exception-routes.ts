/**
 * `/posture-check-exceptions` (Postern): the six CRUD operations through the CRUD kit, who wrote each taken
 * from the request, and `/{id}/history`. The rules live in posture-exception-service.ts.
 */
import type { FastifyRequest } from 'fastify';
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { registerCrud } from '../http/crud.js';
import { entityBase, iso, list } from '../http/envelope.js';
import { authOf } from '../auth/guard.js';
import { notFound } from '../api-error.js';
import { isActive, type Actor, type PostureCheckException } from '../posture-exception-model.js';
import {
  ExceptionHistoryItem,
  PostureCheckExceptionCreate,
  PostureCheckExceptionDetail,
  PostureCheckExceptionPatch,
} from '../../src/api/resources/posture-check-exceptions.js';
import { IdParams, errorResponses, listEnvelope } from '../../src/api/resources/envelopes.js';
import { PostureExceptionService } from './posture-exception-service.js';

const COLLECTION = 'posture-check-exceptions';

const actorOf = (request: FastifyRequest): Actor => {
  const { identity } = authOf(request);
  return { id: identity.id, name: identity.name };
};

export function registerPostureCheckExceptions(app: Api, ctx: ControllerContext): void {
  const service = new PostureExceptionService(ctx);
  const toWire = (e: PostureCheckException) => {
    const { name: _name, ...base } = entityBase(COLLECTION, e) as Record<string, unknown>;
    return {
      ...base,
      identityId: e.identityId,
      identityRoles: e.identityRoles,
      postureCheckId: e.postureCheckId,
      expiresAt: iso(e.expiresAt),
      reason: e.reason,
      grantedBy: e.grantedBy,
      updatedBy: e.updatedBy,
      state: isActive(e, ctx.clock.now()) ? 'active' : 'expired',
    };
  };
  registerCrud<PostureCheckException>(app, ctx, {
    collection: COLLECTION,
    tag: 'Posture Check Exceptions',
    repo: ctx.store.postureCheckExceptions,
    schemas: {
      create: PostureCheckExceptionCreate,
      update: PostureCheckExceptionCreate,
      patch: PostureCheckExceptionPatch,
      detail: PostureCheckExceptionDetail,
    },
    toWire,
    build: (body, mode, existing, id, now, request) =>
      service.prepare(body, mode, existing, id, now, actorOf(request)),
    // Whatever is read expired has its expiry recorded (posture-exception-service.ts).
    prepare: (exceptions) => service.recordExpiries(exceptions),
    afterWrite: (exception, op, request) => service.written(exception, op, actorOf(request)),
  });

  app.get(
    `/${COLLECTION}/:id/history`,
    {
      schema: {
        tags: ['Posture Check Exceptions'],
        params: IdParams,
        response: { 200: listEnvelope(ExceptionHistoryItem), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const exception = await ctx.store.postureCheckExceptions.get(id);
      if (exception) await service.recordExpiries([exception]);
      const entries = await service.history(id);
      // A deleted exception keeps its history; an id that never was one has none.
      if (!exception && entries.length === 0) throw notFound(`${COLLECTION}/${id}`);
      const items = entries.map((h) => ({
        at: iso(h.createdAt),
        action: h.action,
        by: h.by,
        expiresAt: iso(h.expiresAt),
        reason: h.reason,
      }));
      return list(items, { limit: items.length, offset: 0, totalCount: items.length });
    },
  );
}
