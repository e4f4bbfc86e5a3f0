/**
 * The management API's enrollments (administrators only), as OpenZiti's: `GET/POST /enrollments`,
 * `GET/DELETE /enrollments/<id>`, `POST /enrollments/<id>/refresh` (a new token and expiry; the old token
 * stops working at once) and `GET /identities/<id>/enrollments`. Only outstanding (unused) enrollments are
 * listed; a used one is gone from here, as in OpenZiti. A refused write stores nothing.
 */
import { recordAudit } from '../audit/audit-trail.js';
import { requestActor } from '../audit/admin-changes.js';
import type { Api } from '../http/typed-app.js';
import {
  EnrollmentCreateSchema,
  EnrollmentDetailSchema,
  EnrollmentRefreshSchema,
} from '../../src/api/schemas-enrollment.js';
import type { ControllerContext } from '../platform/context.js';
import type { Enrollment } from '../model.js';
import { notFound, validationError } from '../api-error.js';
import { created, detail, empty, list } from '../http/envelope.js';
import { parseListQuery } from '../http/list-query.js';
import {
  CreateEnvelope,
  EmptyEnvelope,
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../src/api/resources/envelopes.js';
import type { EnrollmentAuthority } from './enrollment-authority.js';
import { enrollmentToWire, identityNamesOf } from './enrollment-views.js';
import { addEnrollment } from './identity-enrollment.js';
import { enrollmentExpiry } from './enrollment-expiry.js';

export function registerEnrollmentRoutes(
  app: Api,
  ctx: ControllerContext,
  authority: EnrollmentAuthority,
): void {
  const { store } = ctx;
  const tags = ['Enrollment'];
  const load = async (id: string) => (await store.enrollments.get(id)) ?? throwNotFound(`enrollments/${id}`);

  const expiry = (value: string | undefined) => enrollmentExpiry(ctx, value);

  const page = async (query: Record<string, unknown>, identityId?: string) => {
    const q = parseListQuery(query);
    const all = (
      await store.enrollments.listOutstanding({
        limit: Number.MAX_SAFE_INTEGER,
        offset: 0,
        identityId,
      })
    ).items;
    const names = await identityNamesOf(store, all);
    const nameOf = (e: Enrollment) => names.get(e.identityId) ?? '';
    // The small lists' lookups: `id = "x"`, and `name` meaning the identity's name.
    const matching = all.filter(
      (e) =>
        (q.id === undefined || e.id === q.id) &&
        (q.name === undefined || nameOf(e) === q.name) &&
        (q.nameContains === undefined || nameOf(e).toLowerCase().includes(q.nameContains.toLowerCase())),
    );
    const toWire = (e: Enrollment) => enrollmentToWire(authority, e, names.get(e.identityId));
    return list(matching.slice(q.offset, q.offset + q.limit).map(toWire), {
      limit: q.limit,
      offset: q.offset,
      totalCount: matching.length,
    });
  };

  app.get(
    '/enrollments',
    {
      schema: {
        tags,
        description: 'Outstanding (unused) enrollments, expired ones included',
        querystring: ListQuerystring,
        response: { 200: listEnvelope(EnrollmentDetailSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => page(request.query),
  );

  app.post(
    '/enrollments',
    {
      schema: {
        tags,
        body: EnrollmentCreateSchema,
        response: { 201: CreateEnvelope, ...errorResponses(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const { method } = body;
      if (method === 'ottca')
        throw validationError([
          {
            field: 'method',
            reason: 'enrollment with a third-party CA is not supported; use ott or updb',
            value: 'ottca',
          },
        ]);
      // The identity is looked up in the transaction that adds to it: it cannot be deleted in between.
      const enrollment = await store.transaction(async () => {
        if (!(await store.identities.get(body.identityId)))
          throw validationError([
            {
              field: 'identityId',
              reason: `no identity with id '${body.identityId}'`,
              value: body.identityId,
            },
          ]);
        const username = body.username ?? null;
        if (method === 'updb' && username === null)
          throw validationError([{ field: 'username', reason: 'is required for a updb enrollment' }]);
        if (method === 'ott' && username !== null)
          throw validationError([{ field: 'username', reason: 'is only for a updb enrollment' }]);
        const expiresAt = expiry(body.expiresAt);
        return addEnrollment(
          ctx,
          authority,
          body.identityId,
          { method, username },
          {
            expiresAt,
            usernameField: 'username',
          },
        );
      });
      return reply.status(201).send(created('enrollments', enrollment.id));
    },
  );

  app.get(
    '/enrollments/:id',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(EnrollmentDetailSchema), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const enrollment = await load(request.params.id);
      const identity = await store.identities.get(enrollment.identityId);
      return detail(enrollmentToWire(authority, enrollment, identity?.name));
    },
  );

  app.delete(
    '/enrollments/:id',
    {
      schema: {
        tags,
        description: 'Withdraws an outstanding enrollment: its token no longer enrolls',
        params: IdParams,
        response: { 200: EmptyEnvelope, ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      await store.transaction(async () => {
        const existing = await load(id);
        if (!(await store.enrollments.delete(id))) throwNotFound(`enrollments/${id}`);
        await recordAudit(
          ctx,
          {
            type: 'enrollment.deleted',
            actor: requestActor(request),
            address: request.ip,
            identityId: existing.identityId,
            details: { enrollmentId: id, method: existing.method },
          },
          ctx.clock.now(),
        );
      });
      return empty();
    },
  );

  app.post(
    '/enrollments/:id/refresh',
    {
      schema: {
        tags,
        params: IdParams,
        body: EnrollmentRefreshSchema,
        response: { 200: CreateEnvelope, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      // Read and replaced in one transaction: a redemption or another refresh cannot come in between.
      await store.transaction(async () => {
        const existing = await load(id);
        const refreshed = authority.refreshed(existing, expiry(request.body.expiresAt));
        if (!(await store.enrollments.update(refreshed))) throwNotFound(`enrollments/${id}`);
      });
      return created('enrollments', id);
    },
  );

  app.get(
    '/identities/:id/enrollments',
    {
      schema: {
        tags: ['Identity'],
        description: "The identity's outstanding enrollments",
        params: IdParams,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(EnrollmentDetailSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!(await store.identities.get(id))) throwNotFound(`identities/${id}`);
      return page(request.query, id);
    },
  );
}

function throwNotFound(what: string): never {
  throw notFound(what);
}
