/**
 * Lists OpenZiti's controller keeps and Postern has nothing in (yet): each answers OpenZiti's empty list
 * envelope, as an OpenZiti controller with none of them does, so a client's page shows "none" rather than
 * an error. Which ones and why: docs/OPENZITI-COMPATIBILITY.md, ZAC.
 *
 * - management `terminators`, `cas` (third-party CAs an administrator registers for auto-enrollment: the
 *   controller's own CA is not one of them on OpenZiti either; it is served at /.well-known/est/cacerts),
 *   `network-jwts`;
 * - the fabric API's lists ZAC's topology views read (`/fabric/v1/routers|links|circuits|terminators`):
 *   Postern has no fabric of its own (its routers are edge routers, in the management API).
 */
import type { Api } from '../http/typed-app.js';
import { list } from '../http/envelope.js';
import { parseListQuery } from '../http/list-query.js';
import { ListQuerystring, errorResponses, listEnvelope } from '../../src/api/resources/envelopes.js';
import { Type } from '@sinclair/typebox';

export const MANAGEMENT_ABSENT_LISTS = ['terminators', 'cas', 'network-jwts'] as const;
export const FABRIC_ABSENT_LISTS = ['routers', 'links', 'circuits', 'terminators'] as const;

const AnyItem = Type.Object({}, { additionalProperties: true });

/**
 * Registers `GET /<name>` for each list, answering an empty page; a list another part of the controller
 * already serves under the same path (registered before this) is left to it.
 */
export function registerAbsentLists(
  app: Api,
  prefix: string,
  names: readonly string[],
  tag: string,
  access: 'admin' | 'public' = 'admin',
): void {
  for (const name of names) {
    if (app.hasRoute({ method: 'GET', url: `${prefix}/${name}` })) continue;
    app.get(
      `/${name}`,
      {
        config: { access },
        schema: {
          tags: [tag],
          querystring: ListQuerystring,
          ...(access === 'public' ? { security: [] } : {}),
          response: { 200: listEnvelope(AnyItem), ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        // Read like every list, so a bad limit or filter is refused here as it is elsewhere.
        const query = parseListQuery(request.query, { fullGrammar: true });
        return list([], { limit: query.limit, offset: query.offset, totalCount: 0 });
      },
    );
  }
}
