/**
 * `GET /audit-events` and `GET /audit-events/{id}` on the management API (administrators only, the guard's
 * default): the trail filtered, sorted and paged like every document list (`type = "auth.sign-in-failed" and
 * identityId = "…" and createdAt >= datetime(…)`), newest first when the request names no order.
 */
import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { detail, list } from '../http/envelope.js';
import { parseListQuery } from '../http/list-query.js';
import { notFound } from '../api-error.js';
import {
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../src/api/resources/envelopes.js';
import { AuditEventDetail } from '../../src/api/resources/audit-events.js';
import { auditEventToWire } from './audit-wire.js';

const COLLECTION = 'audit-events';
const tags = ['Audit Events'];

export function registerAuditRoutes(app: Api, ctx: ControllerContext): void {
  app.get(
    `/${COLLECTION}`,
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(AuditEventDetail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const query = parseListQuery(
        { ...request.query, sort: request.query.sort ?? 'createdAt desc' },
        { fullGrammar: true },
      );
      const page = await ctx.store.auditEvents.list(query);
      return list(page.items.map(auditEventToWire), {
        limit: page.limit ?? query.limit,
        offset: page.offset ?? query.offset,
        totalCount: page.totalCount,
      });
    },
  );

  app.get(
    `/${COLLECTION}/:id`,
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(AuditEventDetail), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const event = await ctx.store.auditEvents.get(request.params.id);
      if (!event) throw notFound(`${COLLECTION}/${request.params.id}`);
      return detail(auditEventToWire(event));
    },
  );
}
