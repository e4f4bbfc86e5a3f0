import type { Api } from '../http/typed-app.js';
import { PostureCheckTypeDetail } from '../../src/api/resources/posture-checks.js';
import { notFound } from '../api-error.js';
import { detail, list, selfLinks } from '../http/envelope.js';
import { parseListQuery } from '../http/list-query.js';
import {
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../src/api/resources/envelopes.js';
import { POSTURE_TYPE_DESCRIPTORS, type PostureTypeDescriptor } from '../../src/api/posture-types/index.js';

// Every type the registry describes (src/api/posture-types): OpenZiti's, then Postern's extensions.
const TYPES: readonly PostureTypeDescriptor[] = POSTURE_TYPE_DESCRIPTORS;
// Built-in records: their timestamps are fixed so responses are stable across restarts.
const EPOCH = '2026-01-01T00:00:00.000Z';

const toWire = (t: PostureTypeDescriptor) => ({
  id: t.id,
  name: t.apiName,
  createdAt: EPOCH,
  updatedAt: EPOCH,
  _links: selfLinks('posture-check-types', t.id),
  tags: {},
  version: '1',
  operatingSystems: t.operatingSystems.map((type) => ({ type, versions: [] })),
  displayName: t.displayName,
  description: t.description,
  extension: !t.openZiti,
  optionFields: t.optionFields.map((f) => ({
    name: f.name,
    label: f.label,
    help: f.help,
    required: f.required,
    schema: f.schema,
  })),
  reasons: { ...t.reasons },
});

/** The check types this controller evaluates (read-only). */
export function registerPostureCheckTypes(app: Api): void {
  const tags = ['Posture Checks'];
  app.get(
    '/posture-check-types',
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(PostureCheckTypeDetail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const q = parseListQuery(request.query);
      const matching = TYPES.filter(
        (t) => (q.id === undefined || t.id === q.id) && (q.name === undefined || t.apiName === q.name),
      );
      return list(matching.slice(q.offset, q.offset + q.limit).map(toWire), {
        limit: q.limit,
        offset: q.offset,
        totalCount: matching.length,
      });
    },
  );
  app.get(
    '/posture-check-types/:id',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(PostureCheckTypeDetail), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const type = TYPES.find((t) => t.id === request.params.id);
      if (!type) throw notFound('posture-check-types');
      return detail(toWire(type));
    },
  );
}
