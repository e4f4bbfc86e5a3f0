import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { AuthPolicy } from '../model.js';
import { entityBase } from '../http/envelope.js';
import { AuthPolicyCreate, AuthPolicyDetail, AuthPolicyPatch } from '../../src/api/resources/policies.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import type { AuthPolicyDraft, AuthPolicyService } from './auth-policy-service.js';

function merge<T>(base: T, patch: unknown): T {
  if (patch === null || patch === undefined) return base;
  if (typeof patch !== 'object' || Array.isArray(patch) || typeof base !== 'object' || base === null)
    return patch as T;
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) out[k] = merge(out[k], v);
  return out as T;
}

/** A create, PUT or PATCH body as the policy it asks for (a PATCH merges what it names over what is stored). */
function readDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: AuthPolicy | undefined,
): AuthPolicyDraft {
  return {
    name: pick(body, 'name', mode, existing?.name, ''),
    primary:
      mode === 'patch' ? merge(existing!.primary, body.primary) : (body.primary as AuthPolicy['primary']),
    secondary:
      mode === 'patch'
        ? merge(existing!.secondary, body.secondary)
        : (body.secondary as AuthPolicy['secondary']),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
  };
}

export function registerAuthPolicies(app: Api, ctx: ControllerContext, service: AuthPolicyService): void {
  registerCrud<AuthPolicy>(app, ctx, {
    collection: 'auth-policies',
    tag: 'Auth Policy',
    repo: ctx.store.authPolicies,
    schemas: {
      create: AuthPolicyCreate,
      update: AuthPolicyCreate,
      patch: AuthPolicyPatch,
      detail: AuthPolicyDetail,
    },
    toWire: (p) => ({
      ...entityBase('auth-policies', p),
      primary: p.primary,
      secondary: {
        requireTotp: p.secondary.requireTotp,
        requireExtJwtSigner: p.secondary.requireExtJwtSigner ?? null,
      },
    }),
    build: (body, mode, existing, id, now) =>
      service.prepare(readDraft(body, mode, existing), existing, id, now),
    beforeDelete: (policy) => service.beforeDelete(policy),
    afterWrite: () => service.written(),
  });
}
