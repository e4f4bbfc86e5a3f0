/**
 * Management API (Postern's additions): the impact of a posture check or service policy write, before it is
 * made. `POST /posture-checks/preview` and `POST /service-policies/preview` take the body the write would
 * take (see src/api/resources/preview.ts) and answer which identities would newly lose or gain Dial access to
 * which services, and why; nothing is stored.
 */
import type { Api } from '../../http/typed-app.js';
import type { ControllerContext } from '../../platform/context.js';
import type { CatalogueService } from '../../catalogue/catalogue-service.js';
import { detail } from '../../http/envelope.js';
import { detailEnvelope, errorResponses } from '../../../src/api/resources/envelopes.js';
import {
  ImpactPreview,
  PostureCheckPreviewBody,
  ServicePolicyPreviewBody,
} from '../../../src/api/resources/preview.js';
import { previewImpact } from './impact-preview.js';
import { postureCheckChange, servicePolicyChange } from './preview-changes.js';

export function registerPreviewRoutes(app: Api, ctx: ControllerContext, catalogue: CatalogueService): void {
  const routes = [
    {
      path: '/posture-checks/preview',
      tag: 'Posture Checks',
      body: PostureCheckPreviewBody,
      change: postureCheckChange,
      what: 'posture check',
    },
    {
      path: '/service-policies/preview',
      tag: 'Service Policy',
      body: ServicePolicyPreviewBody,
      change: servicePolicyChange,
      what: 'service policy',
    },
  ];
  for (const route of routes)
    app.post(
      route.path,
      {
        schema: {
          tags: [route.tag],
          description: `Postern: which identities a ${route.what} create, change or delete would newly refuse or grant Dial access to which services, from the posture data stored now; nothing is stored`,
          body: route.body,
          response: { 200: detailEnvelope(ImpactPreview), ...errorResponses(400, 401, 409) },
        },
      },
      async (request) => {
        const now = ctx.clock.now();
        const change = await route.change(ctx, catalogue, request.body as Record<string, unknown>, now);
        return detail(await previewImpact(ctx.store, change, now));
      },
    );
}
