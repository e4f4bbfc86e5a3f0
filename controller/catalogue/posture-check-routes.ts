import type { Api } from '../http/typed-app.js';
import { Type } from '@sinclair/typebox';
import type { ControllerContext } from '../platform/context.js';
import { POSTURE_CHECK_TYPES, type PostureCheck } from '../posture-model.js';
import { moduleFor } from '../posture/checks/index.js';
import { entityBase } from '../http/envelope.js';
import { Attributes, BaseEntity, Name, Sentence, Tags, writeBodies } from '../http/schemas.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import type { CatalogueService, PostureCheckDraft } from './catalogue-service.js';

// The envelope is checked here; each type's own fields are checked by its module (posture/checks/*),
// which names the offending field precisely.
const common = {
  typeId: Type.String({ maxLength: 64, description: `one of ${POSTURE_CHECK_TYPES.join(', ')}` }),
  name: Name,
  roleAttributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  attributes: Type.Optional(Type.Union([Attributes, Type.Null()])),
  tags: Type.Optional(Tags),
  remediation: Type.Optional(
    Type.Union([Sentence, Type.Null()], {
      description: 'Postern: advice shown as written to a user this check blocks (a sentence and a link)',
    }),
  ),
};
// Each type's own fields, checked by its module; listed here so any other field is refused by name.
const typeFields = Object.fromEntries(
  [
    'operatingSystems',
    'macAddresses',
    'domains',
    'process',
    'processes',
    'semantic',
    'timeoutSeconds',
    'promptOnWake',
    'promptOnUnlock',
    'ignoreLegacyEndpoints',
  ].map((f) => [f, Type.Optional(Type.Unknown({ description: 'a field of the chosen typeId' }))]),
);
const { create: CheckCreate, patch: CheckPatch } = writeBodies(
  { ...common, ...typeFields, name: Type.Optional(Name) },
  // OpenZiti's console sends the check's own `id` back in its PATCH; the path names the check.
  ['id'],
  'plus the fields of the chosen typeId',
);
export const CheckDetail = Type.Object(
  {
    ...BaseEntity,
    name: Type.String(),
    typeId: Type.String(),
    version: Type.Integer(),
    roleAttributes: Type.Array(Type.String()),
    attributes: Type.Array(Type.String()),
  },
  { additionalProperties: true },
);

export function postureCheckToWire(check: PostureCheck): Record<string, unknown> {
  return {
    ...entityBase('posture-checks', check),
    typeId: check.typeId,
    version: check.version,
    // Postern's original interface calls them `attributes`, OpenZiti `roleAttributes`: answer both.
    roleAttributes: check.roleAttributes,
    attributes: check.roleAttributes,
    remediation: check.remediation ?? null,
    ...moduleFor(check).toWire(check),
  };
}

/** A create, PUT or PATCH body as the check it asks for; the type's own fields stay in `fields`. */
function readDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: PostureCheck | undefined,
): PostureCheckDraft {
  const attributesField = 'roleAttributes' in body ? 'roleAttributes' : 'attributes';
  return {
    typeId: body.typeId as string | undefined,
    name: pick<string | undefined>(body, 'name', mode, existing?.name, undefined),
    roleAttributes: pick<string[] | null>(body, attributesField, mode, existing?.roleAttributes, []) ?? [],
    remediation: pick<string | null>(body, 'remediation', mode, existing?.remediation ?? null, null),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
    fields: body,
    mode,
  };
}

export function registerPostureChecks(app: Api, ctx: ControllerContext, catalogue: CatalogueService): void {
  registerCrud<PostureCheck>(app, ctx, {
    collection: 'posture-checks',
    tag: 'Posture Checks',
    repo: ctx.store.postureChecks,
    schemas: { create: CheckCreate, update: CheckCreate, patch: CheckPatch, detail: CheckDetail },
    toWire: postureCheckToWire,
    build: (body, mode, existing, id, now) =>
      catalogue.preparePostureCheck(readDraft(body, mode, existing), existing, id, now),
    beforeDelete: (check, options) => catalogue.beforePostureCheckDelete(check, options),
    afterWrite: () => catalogue.written(),
  });
}
