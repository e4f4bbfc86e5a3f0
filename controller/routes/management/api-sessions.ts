/**
 * `GET /api-sessions`, `GET /api-sessions/:id`, `DELETE /api-sessions/:id` (OpenZiti's management routes):
 * an administrator sees who is signed in, from where, with MFA or not, and ends one session (its sessions and
 * tunnels end with it). The token is never shown: only its hash is stored, so `token` is always empty.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ControllerContext } from '../../context.js';
import type { ApiSession } from '../../model.js';
import { deleteApiSession } from '../../auth/api-sessions.js';
import { notFound } from '../../http/api-error.js';
import { empty, iso, list, selfLinks } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import {
  BaseEntity,
  DateTime,
  EmptyEnvelope,
  EntityRef,
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../http/schemas.js';
import { ref } from './refs.js';

const ApiSessionDetail = Type.Object(
  {
    ...BaseEntity,
    token: Type.String({ description: 'always empty: tokens are stored only as hashes' }),
    identity: EntityRef,
    identityId: Type.String(),
    authenticatorId: Type.String(),
    configTypes: Type.Array(Type.String()),
    ipAddress: Type.String(),
    authQueries: Type.Array(Type.Object({}, { additionalProperties: true })),
    isMfaRequired: Type.Boolean(),
    isMfaComplete: Type.Boolean(),
    isCertExtendable: Type.Boolean(),
    lastActivityAt: DateTime,
    cachedLastActivityAt: DateTime,
    cachedUpdatedAt: DateTime,
  },
  { additionalProperties: true },
);

const tags = ['API Session'];

export function registerApiSessions(app: FastifyInstance, ctx: ControllerContext): void {
  const toWire = (session: ApiSession) => ({
    id: session.id,
    createdAt: iso(session.createdAt),
    updatedAt: iso(session.updatedAt),
    _links: selfLinks('api-sessions', session.id),
    tags: {},
    token: '',
    identity: ref('identities', session.identityId, ctx.store.identities.get(session.identityId)?.name ?? ''),
    identityId: session.identityId,
    authenticatorId: session.authenticatorId,
    configTypes: session.configTypes,
    ipAddress: session.ipAddress,
    authQueries: [],
    isMfaRequired: session.isMfaRequired,
    isMfaComplete: session.isMfaComplete,
    isCertExtendable: false,
    lastActivityAt: iso(session.lastActivityAt),
    cachedLastActivityAt: iso(session.lastActivityAt),
    cachedUpdatedAt: iso(session.updatedAt),
  });
  const load = (id: string) => {
    const session = ctx.store.apiSessions.get(id);
    if (!session) throw notFound(`api-sessions/${id}`);
    return session;
  };

  app.get(
    '/api-sessions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(ApiSessionDetail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const query = parseListQuery(request.query as Parameters<typeof parseListQuery>[0]);
      const page = ctx.store.apiSessions.list(query);
      return list(page.items.map(toWire), {
        limit: query.limit,
        offset: query.offset,
        totalCount: page.totalCount,
      });
    },
  );

  app.get(
    '/api-sessions/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(ApiSessionDetail), ...errorResponses(401, 404) },
      },
    },
    async (request) => ({ data: toWire(load((request.params as { id: string }).id)), meta: {} }),
  );

  app.delete(
    '/api-sessions/:id',
    {
      config: { access: 'admin' },
      schema: { tags, params: IdParams, response: { 200: EmptyEnvelope, ...errorResponses(401, 404) } },
    },
    async (request) => {
      deleteApiSession(ctx, load((request.params as { id: string }).id));
      return empty();
    },
  );
}
