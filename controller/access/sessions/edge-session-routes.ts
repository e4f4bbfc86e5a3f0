/**
 * `GET /sessions`, `GET /sessions/:id`, `DELETE /sessions/:id` on the management API (OpenZiti's routes): an
 * administrator sees every identity's edge sessions and ends one. Ending one removes it in a transaction; the
 * access outbox publishes the removal after commit, so routers cut its streams and the agent hears it before
 * the answer goes out. The token is never shown (`token` is always empty): only its hash is stored.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { notFound } from '../../api-error.js';
import { detail, empty, list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import {
  EmptyEnvelope,
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../../src/api/resources/envelopes.js';
import { SessionManagementDetail } from '../../../src/api/resources/sessions.js';
import type { AccessService } from '../access-service.js';
import type { EdgeSession } from '../../store/posture-repository.js';
import { edgeSessionToWire } from '../http/record-views.js';
import type { EdgeRouterService } from '../../edge-routers/edge-router-service.js';

const tags = ['Session'];

export function registerEdgeSessions(
  app: Api,
  ctx: ControllerContext,
  accessService: AccessService,
  edgeRouters: EdgeRouterService,
): void {
  const { store } = ctx;
  /** A page of sessions as shown: their services, identities and routers read once for the page. */
  const toWire = async (sessions: readonly EdgeSession[]) => {
    const [services, identities, access] = await Promise.all([
      store.services.getMany([...new Set(sessions.map((s) => s.serviceId))]),
      store.identities.getMany([...new Set(sessions.map((s) => s.identityId))]),
      edgeRouters.access(),
    ]);
    const serviceById = new Map(services.map((s) => [s.id, s]));
    const identityById = new Map(identities.map((i) => [i.id, i]));
    return sessions.map((s) => {
      const service = serviceById.get(s.serviceId);
      const identity = identityById.get(s.identityId);
      const routers = service && identity ? access.routersFor(identity, service) : [];
      return edgeSessionToWire(
        s,
        '',
        service,
        routers.map((r) => edgeRouters.toSessionWire(r)),
      );
    });
  };
  const load = async (id: string) => {
    const session = await store.posture.sessions.get(id);
    if (!session) throw notFound(`sessions/${id}`);
    return session;
  };

  app.get(
    '/sessions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(SessionManagementDetail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const query = parseListQuery(request.query, { fullGrammar: true });
      const page = await store.posture.sessions.list(query);
      return list(await toWire(page.items), {
        limit: page.limit ?? query.limit,
        offset: page.offset ?? query.offset,
        totalCount: page.totalCount,
      });
    },
  );

  app.get(
    '/sessions/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(SessionManagementDetail), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const [shown] = await toWire([await load(request.params.id)]);
      return detail(shown!);
    },
  );

  app.delete(
    '/sessions/:id',
    {
      config: { access: 'admin' },
      schema: { tags, params: IdParams, response: { 200: EmptyEnvelope, ...errorResponses(401, 404) } },
    },
    async (request) => {
      // Resolves once the removal is published (routers told, streams cut): then it answers.
      await accessService.revokeSession(request.params.id);
      return empty();
    },
  );
}
