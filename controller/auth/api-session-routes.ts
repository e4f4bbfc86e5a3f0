/**
 * `GET /api-sessions`, `GET /api-sessions/:id`, `DELETE /api-sessions/:id` (OpenZiti's management routes):
 * an administrator sees who is signed in, from where, with MFA or not, and ends one session (its sessions and
 * tunnels end with it). The token is never shown: only its hash is stored, so `token` is always empty.
 */
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { ApiSession } from '../model.js';
import { deleteApiSession } from './api-sessions.js';
import { requestActor } from '../audit/admin-changes.js';
import { notFound } from '../api-error.js';
import { empty, iso, list, selfLinks } from '../http/envelope.js';
import { parseListQuery } from '../http/list-query.js';
import { ApiSessionDetail } from '../../src/api/resources/sessions.js';
import {
  EmptyEnvelope,
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../src/api/resources/envelopes.js';
import { ref } from '../http/refs.js';

const tags = ['API Session'];

/**
 * `identity = "<id>"` (OpenZiti's field; `identityId` too): one identity's sessions, the lookup an administrator
 * makes from an identity's page. Other filters are the usual name and id lookups.
 */
function identityFilter(filter: string | undefined): string | undefined {
  const m = /^\s*identity(?:Id)?\s*=\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(filter ?? '');
  return m ? m[1]!.replace(/\\(.)/g, '$1') : undefined;
}

export function registerApiSessions(app: Api, ctx: ControllerContext): void {
  /** A page of sessions as shown, their identities' names read at once. */
  const toWire = async (sessions: readonly ApiSession[]) => {
    const identities = await ctx.store.identities.getMany([...new Set(sessions.map((s) => s.identityId))]);
    const names = new Map(identities.map((i) => [i.id, i.name]));
    return sessions.map((session) => sessionToWire(session, names.get(session.identityId) ?? ''));
  };
  const sessionToWire = (session: ApiSession, identityName: string) => ({
    id: session.id,
    createdAt: iso(session.createdAt),
    updatedAt: iso(session.updatedAt),
    _links: selfLinks('api-sessions', session.id),
    tags: {},
    token: '',
    identity: ref('identities', session.identityId, identityName),
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
  const load = async (id: string) => {
    const session = await ctx.store.apiSessions.get(id);
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
      const q = request.query;
      const identityId = identityFilter(q.filter);
      if (identityId !== undefined) {
        const query = parseListQuery({ ...q, filter: undefined });
        const sessions = await ctx.store.apiSessions.listByIdentity(identityId);
        return list(await toWire(sessions.slice(query.offset, query.offset + query.limit)), {
          limit: query.limit,
          offset: query.offset,
          totalCount: sessions.length,
        });
      }
      const query = parseListQuery(q);
      const page = await ctx.store.apiSessions.list(query);
      return list(await toWire(page.items), {
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
    async (request) => {
      const [shown] = await toWire([await load(request.params.id)]);
      return { data: shown!, meta: {} };
    },
  );

  app.delete(
    '/api-sessions/:id',
    {
      config: { access: 'admin' },
      schema: { tags, params: IdParams, response: { 200: EmptyEnvelope, ...errorResponses(401, 404) } },
    },
    async (request) => {
      // Resolves once its revocations (sessions cut, routers and agents told) are done: then it answers.
      await deleteApiSession(ctx, await load(request.params.id), {
        cause: 'admin-deleted',
        actor: requestActor(request),
        address: request.ip,
      });
      return empty();
    },
  );
}
