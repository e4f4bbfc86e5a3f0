import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import { POSTURE_CHECK_TYPES, type PostureCheck } from '../posture-model.js';
import { getCheckModule, moduleFor } from '../posture/checks/index.js';
import { validationError, type FieldCause } from '../api-error.js';
import { entityBase } from '../http/envelope.js';
import {
  PostureCheckCreate,
  PostureCheckDetail,
  PostureCheckPatch,
} from '../../src/api/resources/posture-checks.js';
import { releasePolicyReferences } from './policy-references.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import { normaliseAttributes } from './roles.js';

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

function buildCheck(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: PostureCheck | undefined,
  id: string,
  now: Date,
): PostureCheck {
  const typeId = (body.typeId ?? existing?.typeId) as string | undefined;
  const module = typeId === undefined ? undefined : getCheckModule(typeId);
  if (!module) {
    throw validationError([
      {
        field: 'typeId',
        reason: `must be one of ${POSTURE_CHECK_TYPES.join(', ')}`,
        value: body.typeId ?? null,
      },
    ]);
  }
  if (existing && typeId !== existing.typeId) {
    throw validationError([
      { field: 'typeId', reason: `a ${existing.typeId} check cannot change its type`, value: typeId },
    ]);
  }
  const problems: FieldCause[] = [];
  const parsed = module.parse(body, mode, existing as never);
  if (!parsed.ok) problems.push(...parsed.problems);
  let name = pick<string | undefined>(body, 'name', mode, existing?.name, undefined);
  if (name === undefined) {
    // OpenZiti requires a name; Postern's documented MFA example has none, so MFA checks get one.
    if (typeId === 'MFA') name = `MFA check ${id.slice(0, 8)}`;
    else problems.push({ field: 'name', reason: 'is required' });
  }
  if (problems.length || !parsed.ok) throw validationError(problems);
  const attributesField = 'roleAttributes' in body ? 'roleAttributes' : 'attributes';
  const attributes = pick<string[] | null>(body, attributesField, mode, existing?.roleAttributes, []) ?? [];
  return {
    ...parsed.spec,
    id,
    name: name!,
    typeId,
    roleAttributes: normaliseAttributes(attributes),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
    // An empty text is no advice: stored as none, so the user never sees a blank line.
    remediation:
      pick<string | null>(body, 'remediation', mode, existing?.remediation ?? null, null)?.trim() || null,
    version: (existing?.version ?? 0) + 1,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  } as PostureCheck;
}

export function registerPostureChecks(app: Api, ctx: ControllerContext): void {
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
    build: (body, mode, existing, id, now) => buildCheck(body, mode, existing, id, now),
    beforeDelete: async (check, { cascade }) => {
      await releasePolicyReferences(ctx, 'postureCheck', check, 'posture check', cascade);
    },
    afterWrite: () => void ctx.events.emit('policy.changed'),
  });
}
