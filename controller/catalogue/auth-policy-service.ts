/**
 * Auth policies' use cases, apart from HTTP: what a policy write must satisfy (the external JWT signers it
 * names exist), what a delete must not do (remove the default policy, or one identities use),
 * and the event every write raises: `policy.changed`, published once its transaction commits.
 */
import type { ControllerContext } from '../platform/context.js';
import type { AuthPolicy } from '../model.js';
import { ApiError, validationError, type FieldCause } from '../api-error.js';

/** An auth policy as a write asks for it (a PATCH's sections merged over the stored ones). */
export interface AuthPolicyDraft {
  name: string;
  primary: AuthPolicy['primary'];
  secondary: AuthPolicy['secondary'];
  tags: Record<string, unknown>;
}

export class AuthPolicyService {
  constructor(private readonly ctx: ControllerContext) {}

  /** Checks a write and answers the policy to store; a 400 naming the field otherwise. */
  async prepare(
    draft: AuthPolicyDraft,
    existing: AuthPolicy | undefined,
    id: string,
    now: Date,
  ): Promise<AuthPolicy> {
    const { primary, secondary } = draft;
    const signers = this.ctx.store.externalJwtSigners;
    const problems: FieldCause[] = [];
    for (const [i, signerId] of primary.extJwt.allowedSigners.entries())
      if (!(await signers.get(signerId)))
        problems.push({
          field: `primary.extJwt.allowedSigners[${i}]`,
          reason: `no external JWT signer with id '${signerId}'`,
          value: signerId,
        });
    const required = secondary.requireExtJwtSigner ?? null;
    if (required && !(await signers.get(required)))
      problems.push({
        field: 'secondary.requireExtJwtSigner',
        reason: `no external JWT signer with id '${required}'`,
        value: required,
      });
    if (problems.length) throw validationError(problems);
    return {
      id,
      name: draft.name,
      primary: {
        ...primary,
        extJwt: { ...primary.extJwt, allowedSigners: [...new Set(primary.extJwt.allowedSigners)] },
      },
      secondary: { requireTotp: secondary.requireTotp, requireExtJwtSigner: required },
      tags: draft.tags,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  /** Before a delete, in its transaction: the default policy and one still in use stay (409). */
  async beforeDelete(policy: AuthPolicy): Promise<void> {
    if (policy.id === 'default')
      throw new ApiError(
        409,
        'CAN_NOT_DELETE_REFERENCED_ENTITY',
        'The default auth policy cannot be deleted',
      );
    const users = await this.ctx.store.countIdentitiesWithAuthPolicy(policy.id);
    if (users > 0) {
      throw new ApiError(
        409,
        'CAN_NOT_DELETE_REFERENCED_ENTITY',
        `The auth policy is used by ${users} identities`,
      );
    }
  }

  /** After any write, in its transaction: sign-in rules changed, so access is decided again. */
  written(): void {
    this.ctx.events.emit('policy.changed');
  }
}
