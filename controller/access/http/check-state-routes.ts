/**
 * The posture rollout overview on the management API: `GET /posture-checks/{id}/devices` (each identity the
 * check applies to, its state and values, filtered and paged like any list: `state = "would-fail"`) and
 * `GET /posture-check-status` (per check, how many devices are in each state). Read from what the engine
 * records at each evaluation (engine/check-state-recorder.ts).
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { iso, list } from '../../http/envelope.js';
import { parseListQuery } from '../../http/list-query.js';
import { notFound } from '../../api-error.js';
import { narrowFilter } from '../../store/filter/narrow.js';
import { CHECK_STATES, type CheckState } from '../../check-state-model.js';
import { enforcementOf, enforcementToWire } from '../../posture/enforcement-field.js';
import {
  IdParams,
  ListQuerystring,
  errorResponses,
  listEnvelope,
} from '../../../src/api/resources/envelopes.js';
import { PostureCheckDevice, PostureCheckStatus } from '../../../src/api/resources/posture-check-states.js';

const COUNT_NAMES: Record<CheckState, string> = {
  passing: 'passing',
  'would-fail': 'wouldFail',
  warned: 'warned',
  excepted: 'excepted',
  failing: 'failing',
};

const quoted = (id: string) => `"${id.replace(/["\\]/g, '')}"`;

export function registerCheckStateRoutes(app: Api, ctx: ControllerContext): void {
  const { store } = ctx;
  const tags = ['Posture Checks'];

  app.get(
    '/posture-checks/:id/devices',
    {
      schema: {
        tags,
        params: IdParams,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(PostureCheckDevice), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!(await store.postureChecks.get(id))) throw notFound(`posture-checks/${id}`);
      const query = parseListQuery(request.query, { fullGrammar: true });
      const page = await store.postureCheckStates.list({
        limit: query.limit,
        offset: query.offset,
        filter: narrowFilter(query.filter, `postureCheckId = ${quoted(id)}`),
      });
      const identities = await store.identities.getMany(page.items.map((r) => r.identityId));
      const names = new Map(identities.map((i) => [i.id, i.name]));
      return list(
        page.items.map((r) => ({
          identityId: r.identityId,
          identityName: names.get(r.identityId) ?? null,
          state: r.state,
          actualValue: r.actualValue,
          expectedValue: r.expectedValue,
          reason: r.reason,
          since: iso(r.since),
        })),
        {
          limit: page.limit ?? query.limit,
          offset: page.offset ?? query.offset,
          totalCount: page.totalCount,
        },
      );
    },
  );

  app.get(
    '/posture-check-status',
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(PostureCheckStatus), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      // Paged and filtered over the checks, as `/posture-checks` is.
      const query = parseListQuery(request.query, { fullGrammar: true });
      const checks = await store.postureChecks.list(query);
      const count = async (checkId: string, state: CheckState) =>
        (
          await store.postureCheckStates.list({
            limit: 1,
            offset: 0,
            filter: `postureCheckId = ${quoted(checkId)} and state = "${state}"`,
          })
        ).totalCount;
      const items = [];
      for (const check of checks.items) {
        const counts: Record<string, number> = {};
        for (const state of CHECK_STATES) counts[COUNT_NAMES[state]] = await count(check.id, state);
        items.push({
          postureCheckId: check.id,
          name: check.name,
          typeId: check.typeId,
          enforcement: enforcementToWire(enforcementOf(check)),
          counts,
        });
      }
      return list(items, {
        limit: checks.limit ?? query.limit,
        offset: checks.offset ?? query.offset,
        totalCount: checks.totalCount,
      });
    },
  );
}
