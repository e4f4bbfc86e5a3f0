/**
 * The caller's services (`GET /services`, `/services/<id>`) with their posture queries evaluated for the
 * caller's API session, and `GET /current-api-session/service-updates`, which tells an agent when to list again.
 */
import type { Api } from '../../http/typed-app.js';
import { authOf } from '../../auth/guard.js';
import { detail, iso, list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import {
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../../src/api/resources/envelopes.js';
import type { AccessService } from '../access-service.js';
import { clientServiceToWire } from './service-view.js';
import { ClientServiceDetailSchema, ServiceUpdatesSchema } from '../../../src/api/schemas.js';

export function registerServiceRoutes(app: Api, access: AccessService): void {
  const tags = ['Service'];
  // `configTypes` is outside the routes' querystring schemas (read as given: one value, a list or a CSV), so
  // the raw query is read here rather than a typed one.
  const configTypesOf = (query: unknown) => (query as { configTypes?: unknown }).configTypes;

  app.get(
    '/services',
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(ClientServiceDetailSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      // The whole grammar, as the management lists take it (OpenZiti's client list does too).
      const query = parseListQuery(request.query, { fullGrammar: true });
      const { entries, evaluation, totalCount, limit, offset } = await access.services(
        authOf(request),
        query,
        configTypesOf(request.query),
      );
      return list(
        entries.map(({ grant, configs }) => clientServiceToWire(grant, evaluation, configs)),
        { limit: limit ?? query.limit, offset: offset ?? query.offset, totalCount },
      );
    },
  );

  app.get(
    '/services/:id',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(ClientServiceDetailSchema), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { entry, evaluation } = await access.service(
        authOf(request),
        request.params.id,
        configTypesOf(request.query),
      );
      return detail(clientServiceToWire(entry.grant, evaluation, entry.configs));
    },
  );

  app.get(
    '/current-api-session/service-updates',
    {
      schema: {
        tags: ['Current API Session'],
        response: { 200: detailEnvelope(ServiceUpdatesSchema), ...errorResponses(401) },
      },
    },
    async (request) => detail({ lastChangeAt: iso(await access.lastChangeAt(authOf(request))) }),
  );
}
