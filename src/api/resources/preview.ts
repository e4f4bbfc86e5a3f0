/**
 * Impact previews (Postern's own routes): `POST /posture-checks/preview` and `POST /service-policies/preview`
 * take the write an administrator is about to make and answer, without storing anything, which identities
 * would newly lose or gain Dial access to which services, and why.
 *
 * A body is one of: a create body (a new entity); the same fields with the `id` of a stored entity (a change
 * of it, PATCH semantics: the fields given replace); `{"id": …, "delete": true}` (its deletion; for a posture
 * check, `"cascade": true` as `DELETE ?cascade=true` takes it). Each is validated as that write would be.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { PostureCheckPatch } from './posture-checks.js';
import { ServicePolicyPatch } from './policies.js';

const previewOf = (patch: TObject, withCascade: boolean, what: string) =>
  Type.Object(
    {
      ...patch.properties,
      id: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 255,
          description: `the stored ${what} this changes (PATCH semantics) or deletes; absent: a new ${what}`,
        }),
      ),
      delete: Type.Optional(
        Type.Literal(true, { description: `preview the deletion of the ${what} \`id\`` }),
      ),
      ...(withCascade
        ? {
            cascade: Type.Optional(
              Type.Boolean({
                description: 'with delete: as DELETE ?cascade=true (policies naming it drop it)',
              }),
            ),
          }
        : {}),
    },
    {
      additionalProperties: false,
      description: `a ${what} create body, or the same with the id of a stored ${what}, or {id, delete: true}`,
    },
  );

export const PostureCheckPreviewBody = previewOf(PostureCheckPatch, true, 'posture check');
export const ServicePolicyPreviewBody = previewOf(ServicePolicyPatch, false, 'service policy');

const PreviewReason = Type.Object({
  postureCheckId: Type.Union([Type.String(), Type.Null()], {
    description: 'null for the check a posture-check preview creates (it has no id until saved)',
  }),
  postureCheckName: Type.String(),
  typeId: Type.String(),
  actualValue: Type.Unknown(),
  expectedValue: Type.Unknown(),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'why the check fails, in a sentence' }),
  failure: Type.Union([Type.Object({ code: Type.String() }, { additionalProperties: true }), Type.Null()], {
    description: "the code and facts the device's user is given (see docs/ACCESS.md)",
  }),
});

const PreviewItem = Type.Object({
  identityId: Type.String(),
  identityName: Type.String(),
  serviceId: Type.String(),
  serviceName: Type.String(),
  reasons: Type.Array(PreviewReason, {
    description:
      'newlyRefused: the checks that would refuse it; newlyGranted: the checks that refuse it now; empty when no Dial policy selects the pair on that side',
  }),
});

export const ImpactPreview = Type.Object({
  newlyRefused: Type.Array(PreviewItem, {
    description:
      'pairs that have Dial access now and would not (the first 1,000, by identity then service name)',
  }),
  newlyGranted: Type.Array(PreviewItem, {
    description:
      'pairs that have no Dial access now and would (the first 1,000, by identity then service name)',
  }),
  newlyRefusedCount: Type.Integer({ minimum: 0 }),
  newlyGrantedCount: Type.Integer({ minimum: 0 }),
  identitiesRefused: Type.Integer({ minimum: 0, description: 'identities losing at least one service' }),
  servicesRefused: Type.Integer({ minimum: 0, description: 'services lost by at least one identity' }),
});
export type ImpactPreviewWire = Static<typeof ImpactPreview>;
