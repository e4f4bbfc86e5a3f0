/**
 * Deleting something a service policy names by `@id` (an identity, a service, a posture check) would leave
 * the policy pointing at nothing; for a posture check that silently drops a requirement, so access fails
 * open. Such a delete is a 409 naming the policies, unless the caller asks to cascade (`?cascade=true`): then
 * the `@id` is removed from each policy in the same transaction, and the policies change as any edit would.
 */
import type { ControllerContext } from '../platform/context.js';
import { ApiError } from '../api-error.js';
import type { ServicePolicy } from '../model.js';
import type { PolicySide } from '../store/repository.js';

const ROLE_FIELD: Record<PolicySide, 'identityRoles' | 'serviceRoles' | 'postureCheckRoles'> = {
  identity: 'identityRoles',
  service: 'serviceRoles',
  postureCheck: 'postureCheckRoles',
};

/**
 * Throws the 409, or with `cascade` removes the references; answers whether any policy changed. Call inside
 * the delete's transaction, so the check, the policies' edits and the delete land together.
 */
export async function releasePolicyReferences(
  ctx: ControllerContext,
  side: PolicySide,
  entity: { id: string; name: string },
  what: string,
  cascade: boolean,
): Promise<boolean> {
  const role = `@${entity.id}`;
  const field = ROLE_FIELD[side];
  const referrers = (await ctx.store.servicePolicies.selecting(side, [role])).filter((p) =>
    p[field].includes(role),
  );
  if (referrers.length === 0) return false;
  if (!cascade) {
    const names = referrers.map((p) => `'${p.name}'`).join(', ');
    throw new ApiError(
      409,
      'CAN_NOT_DELETE_REFERENCED_ENTITY',
      `The ${what} '${entity.name}' is named by the service ${referrers.length === 1 ? 'policy' : 'policies'} ${names}; ` +
        'remove it from them first, or delete with ?cascade=true to remove it from them too',
      { referrers: referrers.map((p) => ({ id: p.id, name: p.name, entity: 'service-policies' })) },
    );
  }
  const now = ctx.clock.now();
  for (const policy of referrers) {
    const updated: ServicePolicy = {
      ...policy,
      [field]: policy[field].filter((r) => r !== role),
      updatedAt: now,
    };
    await ctx.store.servicePolicies.update(updated);
  }
  return true;
}
