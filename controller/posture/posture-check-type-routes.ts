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
import type { PostureCheckType } from '../posture-model.js';

const ALL_OS = ['Windows', 'WindowsServer', 'Linux', 'macOS', 'iOS', 'Android'];
const TYPES: { id: PostureCheckType; name: string; os: string[] }[] = [
  { id: 'OS', name: 'Operating System Check', os: ALL_OS },
  { id: 'PROCESS', name: 'Process Check', os: ['Windows', 'WindowsServer', 'macOS', 'Linux'] },
  { id: 'PROCESS_MULTI', name: 'Process Multi Check', os: ['Windows', 'WindowsServer', 'macOS', 'Linux'] },
  { id: 'DOMAIN', name: 'Windows Domain Check', os: ['Windows', 'WindowsServer'] },
  { id: 'MAC', name: 'MAC Address Check', os: ['Windows', 'WindowsServer', 'Linux', 'macOS', 'Android'] },
  { id: 'MFA', name: 'MFA Check', os: ALL_OS },
];
// Built-in records: their timestamps are fixed so responses are stable across restarts.
const EPOCH = '2026-01-01T00:00:00.000Z';

const toWire = (t: (typeof TYPES)[number]) => ({
  id: t.id,
  name: t.name,
  createdAt: EPOCH,
  updatedAt: EPOCH,
  _links: selfLinks('posture-check-types', t.id),
  tags: {},
  version: '1',
  operatingSystems: t.os.map((type) => ({ type, versions: [] })),
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
        (t) => (q.id === undefined || t.id === q.id) && (q.name === undefined || t.name === q.name),
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
