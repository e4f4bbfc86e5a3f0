import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { AuthPolicy } from '../model.js';
import { ApiError, validationError } from '../api-error.js';
import { entityBase } from '../http/envelope.js';
import { AuthPolicyCreate, AuthPolicyDetail, AuthPolicyPatch } from '../../src/api/resources/policies.js';
import { registerCrud, pick } from '../http/crud.js';

function merge<T>(base: T, patch: unknown): T {
  if (patch === null || patch === undefined) return base;
  if (typeof patch !== 'object' || Array.isArray(patch) || typeof base !== 'object' || base === null)
    return patch as T;
  const out = { ...base } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) out[k] = merge(out[k], v);
  return out as T;
}

export function registerAuthPolicies(app: Api, ctx: ControllerContext): void {
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
    build(body, mode, existing, id, now) {
      const primary =
        mode === 'patch' ? merge(existing!.primary, body.primary) : (body.primary as AuthPolicy['primary']);
      const secondary =
        mode === 'patch'
          ? merge(existing!.secondary, body.secondary)
          : (body.secondary as AuthPolicy['secondary']);
      if (secondary.requireExtJwtSigner) {
        throw validationError([
          {
            field: 'secondary.requireExtJwtSigner',
            reason: 'external JWT signers are not supported',
            value: secondary.requireExtJwtSigner,
          },
        ]);
      }
      return {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        primary,
        secondary: { requireTotp: secondary.requireTotp, requireExtJwtSigner: null },
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
    },
    async beforeDelete(policy) {
      if (policy.id === 'default')
        throw new ApiError(
          409,
          'CAN_NOT_DELETE_REFERENCED_ENTITY',
          'The default auth policy cannot be deleted',
        );
      const users = await ctx.store.countIdentitiesWithAuthPolicy(policy.id);
      if (users > 0) {
        throw new ApiError(
          409,
          'CAN_NOT_DELETE_REFERENCED_ENTITY',
          `The auth policy is used by ${users} identities`,
        );
      }
    },
    afterWrite: () => void ctx.events.emit('policy.changed'),
  });
}
