/** Management API: an identity's posture data and its recent failed service requests. */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import { notFound } from '../../api-error.js';
import { detail, list } from '../../http/envelope.js';
import {
  IdParams,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../../src/api/resources/envelopes.js';
import { FAILED_REQUESTS_KEPT } from '../decisions/failure-report.js';
import { postureDataToWire } from './posture-data-view.js';
import { failedRequestToWire } from '../http/record-views.js';
import { FailedServiceRequest, PostureData } from '../../../src/api/resources/access.js';

export function registerPostureManagement(app: Api, ctx: ControllerContext): void {
  const tags = ['Identity'];
  // OpenZiti answers an empty structure for an unknown id; a 404 tells a typo from a device that never reported.
  const identityId = async (request: { params: { id: string } }) => {
    const { id } = request.params;
    if (!(await ctx.store.identities.get(id))) throw notFound(`identities/${id}`);
    return id;
  };

  app.get(
    '/identities/:id/posture-data',
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(PostureData), ...errorResponses(401, 404) },
      },
    },
    async (request) =>
      detail(postureDataToWire(await ctx.store.posture.data.load(await identityId(request)))),
  );

  app.get(
    '/identities/:id/failed-service-requests',
    {
      schema: {
        tags,
        params: IdParams,
        description: `The last ${FAILED_REQUESTS_KEPT} session requests refused for posture, oldest first`,
        response: { 200: listEnvelope(FailedServiceRequest), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const records = await ctx.store.posture.failures.list(await identityId(request));
      return list(records.map(failedRequestToWire), {
        limit: FAILED_REQUESTS_KEPT,
        offset: 0,
        totalCount: records.length,
      });
    },
  );
}
