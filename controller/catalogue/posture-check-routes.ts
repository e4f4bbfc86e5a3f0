import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { type PostureCheck } from '../posture-model.js';
import { moduleFor } from '../posture/checks/index.js';
import { enforcementOf, enforcementToWire } from '../posture/enforcement-field.js';
import { entityBase } from '../http/envelope.js';
import {
  PostureCheckCreate,
  PostureCheckDetail,
  PostureCheckPatch,
} from '../../src/api/resources/posture-checks.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import type { CatalogueService, PostureCheckDraft } from './catalogue-service.js';

export function postureCheckToWire(check: PostureCheck): Record<string, unknown> {
  return {
    ...entityBase('posture-checks', check),
    typeId: check.typeId,
    version: check.version,
    // Postern's original interface calls them `attributes`, OpenZiti `roleAttributes`: answer both.
    roleAttributes: check.roleAttributes,
    attributes: check.roleAttributes,
    remediation: check.remediation ?? null,
    enforcement: enforcementToWire(enforcementOf(check)),
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

/** A create, PUT or PATCH body checked and turned into the check it would store (nothing is written). */
export const postureCheckBuilder =
  (catalogue: CatalogueService) =>
  (
    body: Record<string, unknown>,
    mode: WriteMode,
    existing: PostureCheck | undefined,
    id: string,
    now: Date,
  ) =>
    catalogue.preparePostureCheck(readDraft(body, mode, existing), existing, id, now);

export function registerPostureChecks(app: Api, ctx: ControllerContext, catalogue: CatalogueService): void {
  registerCrud<PostureCheck>(app, ctx, {
    collection: 'posture-checks',
    tag: 'Posture Checks',
    repo: ctx.store.postureChecks,
    schemas: {
      create: PostureCheckCreate,
      update: PostureCheckCreate,
      patch: PostureCheckPatch,
      detail: PostureCheckDetail,
    },
    toWire: postureCheckToWire,
    build: postureCheckBuilder(catalogue),
    beforeDelete: (check, options) => catalogue.beforePostureCheckDelete(check, options),
    afterWrite: () => catalogue.written(),
  });
}
