/**
 * `POST /posture-response` (one answer) and `POST /posture-response-bulk` (a list): the agent reports what the
 * posture queries asked. Every item is validated first and the whole request is stored in one transaction, so a
 * bad item leaves nothing behind; the identity is re-evaluated in the same transaction (sessions revoked,
 * lastChangeAt moved); a report that repeats what is stored only moves the facts' time. Only binaries some
 * check asks about are kept, so what a user can store is bounded by the administrator's checks.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { authOf } from '../../auth/guard.js';
import { validationError } from '../../api-error.js';
import { errorResponses } from '../../../src/api/resources/envelopes.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import type { PostureEngine } from '../engine/posture-engine.js';
import { applyResponses, graceServices } from './apply-responses.js';
import { parseResponses } from '../../posture/response-items.js';
import { askedProcesses } from './asked-processes.js';
import { isRepeatedReport, reportedSlots } from './repeated-report.js';
import {
  PostureResponseBulk,
  PostureResponseCreate,
  PostureResponseReply,
} from '../../../src/api/resources/posture-responses.js';

export function registerPostureResponseRoutes(app: Api, ctx: ControllerContext, engine: PostureEngine): void {
  const tags = ['Posture'];
  const respond = async (request: Parameters<typeof authOf>[0], values: unknown[], indexed: boolean) => {
    const parsed = parseResponses(values, indexed);
    if (!parsed.ok) throw validationError(parsed.problems);
    // Reports on binaries no check asks about are valid but not kept (see asked-processes.ts).
    const asked = await askedProcesses(ctx.store);
    const items = parsed.items.filter((item) => item.typeId !== 'PROCESS' || asked.has(item.path));
    const { session, identity } = authOf(request);
    // The usual report repeats the last one: only its time moves, and nothing is evaluated (repeated-report.ts).
    const stored = await ctx.store.posture.data.load(identity.id);
    if (isRepeatedReport(stored, session.id, items, asked)) {
      await ctx.store.posture.data.refreshReported(identity.id, reportedSlots(items), ctx.clock.now());
      return { data: { services: [] }, meta: {} };
    }
    // Storing and re-evaluating share one commit with the reports of other agents arriving at the same
    // moment (group commit); the answer goes out once that commit is durable.
    return ctx.store.batch(async () => {
      const now = ctx.clock.now();
      const before = await ctx.store.posture.data.load(identity.id);
      for (const stale of before.processes.filter((p) => !asked.has(p.path)))
        await ctx.store.posture.data.deleteProcess(identity.id, stale.path);
      await applyResponses(ctx, identity.id, session.id, items, now);
      const resolver = await AccessResolver.of(ctx.store);
      const services = graceServices(resolver, identity, before, session.id, items, now);
      await engine.evaluateIdentity(identity.id, { resolver });
      return { data: { services }, meta: {} };
    });
  };

  app.post(
    '/posture-response',
    {
      schema: {
        tags,
        body: PostureResponseCreate,
        response: { 201: PostureResponseReply, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      reply.status(201);
      return respond(request, [request.body], false);
    },
  );

  app.post(
    '/posture-response-bulk',
    {
      schema: {
        tags,
        body: PostureResponseBulk,
        // OpenZiti's spec says 200, its controller answers 201; so does Postern.
        response: { 201: PostureResponseReply, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      // The answer is returned, not sent: a handler returning `reply` makes Fastify wait for the socket to
      // finish writing (a listener per request), on the route agents call most.
      reply.status(201);
      return respond(request, request.body, true);
    },
  );
}
