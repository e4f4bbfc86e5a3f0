/**
 * `GET /audit-events` and `GET /audit-events/{id}` on the management API (administrators only, the guard's
 * default): the trail filtered, sorted and paged like every document list (`type = "auth.sign-in-failed" and
 * identityId = "…" and createdAt >= datetime(…)`), newest first when the request names no order.
 * `GET /audit-events/export` streams a filtered range, oldest first, as JSON lines or CSV.
 */
import { Readable } from 'node:stream';
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
import {
  AuditEventDetail,
  AuditExportFile,
  AuditExportQuerystring,
} from '../../src/api/resources/audit-events.js';
import { auditEventToWire } from './audit-wire.js';
import { csvHeader, csvRow } from './audit-csv.js';
import { AUDIT_EXPORT_MAX_ROWS, openAuditRange } from './audit-export.js';

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
    `/${COLLECTION}/export`,
    {
      schema: {
        tags,
        description:
          "The events a filter matches (the list's grammar, without sort/skip/limit), oldest first, as JSON " +
          `lines (one event per line, as the list shows it) or CSV (RFC 4180). At most ${AUDIT_EXPORT_MAX_ROWS} ` +
          'rows: when more match, the first ones are sent and the header Postern-Export-Truncated says how many ' +
          "matched; export the rest from the last row's createdAt.",
        produces: ['application/x-ndjson', 'text/csv'],
        querystring: AuditExportQuerystring,
        response: { 200: AuditExportFile, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { format, filter } = request.query;
      // The first page is read here, before the answer starts: a filter the store refuses is a 400.
      const range = await openAuditRange(ctx.store, filter);
      async function* lines(): AsyncGenerator<string> {
        if (format === 'csv') yield csvHeader();
        for await (const event of range.events) {
          const wire = auditEventToWire(event);
          yield format === 'csv' ? csvRow(wire) : `${JSON.stringify(wire)}\n`;
        }
      }
      if (range.truncated) reply.header('postern-export-truncated', String(range.matching));
      return (
        reply
          .type(format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/x-ndjson')
          .header('content-disposition', `attachment; filename="audit-events.${format}"`)
          .header('cache-control', 'no-store')
          // The schema describes the file for OpenAPI; the body is a stream, which fastify sends unserialised.
          .send(Readable.from(lines()) as never)
      );
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
