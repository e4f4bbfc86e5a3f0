/**
 * `POST /posture-response` (one answer) and `POST /posture-response-bulk` (a list): the agent reports what the
 * posture queries asked. HTTP only: the use case (validation, the repeated report, storing, re-evaluating) is
 * `PostureReports` (report-ingest.ts).
 */
import type { Api } from '../../http/typed-app.js';
import { authOf } from '../../auth/guard.js';
import { errorResponses } from '../../../src/api/resources/envelopes.js';
import {
  PostureResponseBulk,
  PostureResponseCreate,
  PostureResponseReply,
} from '../../../src/api/resources/posture-responses.js';
import type { PostureReports } from './report-ingest.js';

export function registerPostureResponseRoutes(app: Api, reports: PostureReports): void {
  const tags = ['Posture'];
  const respond = async (request: Parameters<typeof authOf>[0], values: unknown[], indexed: boolean) => ({
    data: { services: await reports.report(authOf(request), values, indexed) },
    meta: {},
  });

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
