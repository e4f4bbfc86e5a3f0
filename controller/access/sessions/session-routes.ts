/**
 * Edge sessions on the client API: create (posture decides), list, read and delete the caller's own. Another
 * identity's session answers 404, like one that does not exist.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { authOf } from '../../auth/guard.js';
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
import type { AccessService } from '../access-service.js';
import { edgeSessionToWire } from '../http/record-views.js';
import type { EdgeSession } from '../../store/posture-repository.js';
import { SessionAnswers, type AnswerInputs } from './session-answers.js';
import { SessionCreateSchema, SessionDetailSchema } from '../../../src/api/schemas.js';
import type { EdgeRouterService } from '../../edge-routers/edge-router-service.js';

export function registerSessionRoutes(
  app: Api,
  ctx: ControllerContext,
  access: AccessService,
  edgeRouters: EdgeRouterService,
): void {
  const tags = ['Session'];
  const { store } = ctx;
  // Each session names the routers its identity and service may use, with the fingerprint agents pin.
  const inputsOf = async (s: EdgeSession): Promise<AnswerInputs> => {
    const [service, identity] = await Promise.all([
      store.services.get(s.serviceId),
      store.identities.get(s.identityId),
    ]);
    const routers = service && identity ? await edgeRouters.routersFor(identity, service) : [];
    const presence = routers.map((r) => (edgeRouters.isOnline(r.id) ? '1' : '0')).join('');
    return { service, routers, presence };
  };
  // The session's own client sees its token (derived, never stored); '' for one this controller cannot derive,
  // which the next POST /sessions re-keys.
  const tokenOf = (s: EdgeSession) => (ctx.sessionTokens.reissues(s) ? ctx.sessionTokens.tokenOf(s.id) : '');
  const render = (s: EdgeSession, { service, routers }: AnswerInputs) =>
    edgeSessionToWire(
      s,
      tokenOf(s),
      service,
      routers.map((r) => edgeRouters.toSessionWire(r)),
    );
  const toWire = async (s: EdgeSession) => render(s, await inputsOf(s));
  const answers = new SessionAnswers();

  app.post(
    '/sessions',
    {
      schema: {
        tags,
        body: SessionCreateSchema,
        response: { 201: detailEnvelope(SessionDetailSchema), ...errorResponses(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const granted = await access.requestSession(authOf(request), body.serviceId, body.type ?? 'Dial');
      // Answers are returned, not sent (see posture-response-routes.ts).
      reply.status(201);
      if (granted.existing) {
        const existing = granted.session;
        const inputs = await inputsOf(existing);
        const text = answers.answer(
          existing,
          inputs,
          // This route's own schema serializer, which answers text (fast-json-stringify).
          () => reply.serialize(detail(render(existing, inputs))) as string,
        );
        // A JSON string with a JSON content type goes out as it is; the typed route expects the object it
        // was serialized from, hence the cast.
        reply.type('application/json; charset=utf-8');
        return text as never;
      }
      return detail(await toWire(granted.session));
    },
  );

  app.get(
    '/sessions',
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(SessionDetailSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const query = parseListQuery(request.query);
      const mine = (await access.sessionsOf(authOf(request).identity.id)).filter(
        (s) => query.id === undefined || s.id === query.id,
      );
      const page = mine.slice(query.offset, query.offset + query.limit);
      return list(await Promise.all(page.map(toWire)), {
        limit: query.limit,
        offset: query.offset,
        totalCount: mine.length,
      });
    },
  );

  app.get(
    '/sessions/:id',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(SessionDetailSchema), ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      detail(await toWire(await access.ownSession(authOf(request).identity.id, request.params.id))),
  );

  app.delete(
    '/sessions/:id',
    { schema: { tags, params: IdParams, response: { 200: EmptyEnvelope, ...errorResponses(401, 404) } } },
    async (request) => {
      await access.endOwnSession(authOf(request).identity.id, request.params.id);
      return empty();
    },
  );
}
