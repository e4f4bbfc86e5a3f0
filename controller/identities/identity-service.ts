/**
 * Identities' use cases, apart from HTTP: what a create or an edit must satisfy (its auth policy exists, the
 * default admin stays an enabled administrator, a create's enrollment is valid and its username free), what a
 * write sets off in its own transaction (the enrollment a create asked for, the end of a disabled or deleted
 * identity's API sessions, the events) and what a delete must release first (policies naming the identity).
 *
 * The management routes (identity-routes.ts) read a request into an `IdentityDraft` and hand it here; the CRUD
 * kit (http/crud.ts) runs the write's transaction and calls `prepare`, `beforeDelete` and `written` around it.
 */
import type { ControllerContext } from '../platform/context.js';
import type { Identity, IdentityType } from '../model.js';
import { randomUUID } from 'node:crypto';
import { ApiError, notFound, validationError, type FieldCause } from '../api-error.js';
import { endApiSessionsOf } from '../auth/api-sessions.js';
import { releasePolicyReferences } from '../catalogue/policy-references.js';
import { normaliseAttributes } from '../catalogue/roles.js';
import type { EnrollmentAuthority } from '../enrollment/enrollment-authority.js';
import {
  addEnrollment,
  checkUsernameFree,
  parseEnrollmentRequest,
  type RequestedEnrollment,
} from '../enrollment/identity-enrollment.js';

/** An identity as a write asks for it: every field resolved (a PATCH's untouched ones are the stored ones). */
export interface IdentityDraft {
  name: string;
  type: IdentityType;
  isAdmin: boolean;
  roleAttributes: readonly string[];
  authPolicyId: string;
  externalId: string | null;
  disabled: boolean;
  tags: Record<string, unknown>;
  /** the `enrollment` the write carries, as sent (`{ott: true}`, `{updb: "<username>"}`): a create's only */
  enrollment: unknown;
  /** set by an external sign-in only: the attributes its token's claims mapped to (Identity.claimAttributes) */
  claimAttributes?: readonly string[];
}

/** An identity as a draft that changes nothing: the start of an edit the controller makes itself. */
export function draftOf(identity: Identity): IdentityDraft {
  const { name, type, isAdmin, roleAttributes, authPolicyId, externalId, disabled, tags } = identity;
  return {
    name,
    type,
    isAdmin,
    roleAttributes,
    authPolicyId,
    externalId,
    disabled,
    tags,
    enrollment: undefined,
  };
}

export type IdentityWrite = 'create' | 'update' | 'patch' | 'delete';

export class IdentityService {
  /** The enrollment a create asked for, stored by `written` in the create's own transaction. */
  private readonly requestedEnrollment = new WeakMap<Identity, RequestedEnrollment>();

  constructor(
    private readonly ctx: ControllerContext,
    private readonly enrollment: EnrollmentAuthority,
  ) {}

  /**
   * Checks a create (`existing` undefined) or an edit of `existing` and answers the identity to store; a 400
   * naming the field (or a 409 for the default admin) otherwise.
   */
  async prepare(
    draft: IdentityDraft,
    existing: Identity | undefined,
    id: string,
    now: Date,
  ): Promise<Identity> {
    const problems: FieldCause[] = [];
    const { authPolicyId, isAdmin, disabled } = draft;
    if (!(await this.ctx.store.authPolicies.get(authPolicyId))) {
      problems.push({
        field: 'authPolicyId',
        reason: `no auth policy with id '${authPolicyId}'`,
        value: authPolicyId,
      });
    }
    if (existing?.isDefaultAdmin && !isAdmin) {
      problems.push({
        field: 'isAdmin',
        reason: 'the default admin must stay an administrator',
        value: false,
      });
    }
    if (problems.length) throw validationError(problems);
    if (existing && draft.enrollment !== undefined)
      throw validationError([
        {
          field: 'enrollment',
          reason: 'is taken only when the identity is created; POST /enrollments issues one later',
        },
      ]);
    const enrollment = existing ? undefined : parseEnrollmentRequest(draft.enrollment);
    if (enrollment?.username) await checkUsernameFree(this.ctx, enrollment.username, 'enrollment.updb');
    // Disabling the default admin would lock every administrator out of a fresh controller for good.
    if (existing?.isDefaultAdmin && disabled)
      throw new ApiError(
        409,
        'CAN_NOT_DISABLE_DEFAULT_ADMIN',
        'The default admin identity cannot be disabled',
      );
    const identity: Identity = {
      id,
      name: draft.name,
      type: draft.type,
      isAdmin,
      isDefaultAdmin: existing?.isDefaultAdmin ?? false,
      roleAttributes: normaliseAttributes(draft.roleAttributes),
      authPolicyId,
      // Blank is none (ZAC's form sends "" for an empty field): it must not collide with other blanks.
      externalId: draft.externalId || null,
      disabled,
      ...disabledTimes(existing, disabled, now),
      tags: draft.tags,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    const claimAttributes = draft.claimAttributes ?? existing?.claimAttributes;
    if (claimAttributes) identity.claimAttributes = normaliseAttributes(claimAttributes);
    if (enrollment) this.requestedEnrollment.set(identity, enrollment);
    return identity;
  }

  /**
   * `POST /identities/:id/disable` (`minutes` 0: until enabled; N: for N minutes) and `/enable` (`minutes`
   * null): the identity stored so, and `written` run in the same transaction, so a disable ends its API
   * sessions, edge sessions and tunnels as a PATCH `disabled: true` does. 404 for no such identity; the
   * default admin cannot be disabled (409), as with PATCH.
   */
  async setDisabled(id: string, minutes: number | null): Promise<void> {
    const { store, clock } = this.ctx;
    await store.transaction(async () => {
      const existing = await store.identities.get(id);
      if (!existing) throw notFound(`identities/${id}`);
      if (existing.isDefaultAdmin && minutes !== null)
        throw new ApiError(
          409,
          'CAN_NOT_DISABLE_DEFAULT_ADMIN',
          'The default admin identity cannot be disabled',
        );
      // Enabling an identity that is not disabled changes nothing, so it writes nothing and re-decides nothing.
      if (minutes === null && !existing.disabled) return;
      const now = clock.now();
      const disabled = minutes !== null;
      const identity: Identity = {
        ...existing,
        disabled,
        disabledAt: disabled ? now.toISOString() : null,
        disabledUntil: minutes ? new Date(now.getTime() + minutes * 60_000).toISOString() : null,
        updatedAt: now,
      };
      await store.identities.update(identity);
      await this.written(identity, 'patch');
    });
  }

  /**
   * A create (no `existing`) or an edit the controller makes itself (an external sign-in creating its identity
   * or refreshing its attributes), through the same steps as the management API's create and PATCH
   * (http/crud.ts): checked by `prepare`, stored and `written` in one transaction, so the identity's sessions
   * are decided again and the events published once it commits. Throws UniqueViolation like a create.
   */
  async save(draft: IdentityDraft, existing?: Identity): Promise<Identity> {
    const { store } = this.ctx;
    const identity = await this.prepare(draft, existing, existing?.id ?? randomUUID(), this.ctx.clock.now());
    await store.transaction(async () => {
      if (!existing) await store.identities.create(identity);
      else if (!(await store.identities.update(identity))) throw notFound(`identities/${identity.id}`);
      await this.written(identity, existing ? 'patch' : 'create');
    });
    return identity;
  }

  /**
   * Before a delete, in its transaction: the default admin stays; service policies naming the identity by
   * `@id` refuse the delete (409) or, with `cascade`, lose that role.
   */
  async beforeDelete(identity: Identity, { cascade }: { cascade: boolean }): Promise<void> {
    if (identity.isDefaultAdmin) {
      throw new ApiError(
        409,
        'CAN_NOT_DELETE_REFERENCED_ENTITY',
        'The default admin identity cannot be deleted',
      );
    }
    if (await releasePolicyReferences(this.ctx, 'identity', identity, 'identity', cascade))
      this.ctx.events.emit('policy.changed');
  }

  /**
   * After the identity was stored or deleted, awaited inside the write's transaction: on a delete, the
   * identity, its authenticators, its API sessions (with their sessions) and, with ?cascade=true, the
   * policies' references to it go together or not at all. The events are published once it commits.
   */
  async written(identity: Identity, op: IdentityWrite): Promise<void> {
    const { ctx } = this;
    const enrollment = op === 'create' ? this.requestedEnrollment.get(identity) : undefined;
    if (enrollment)
      await addEnrollment(ctx, this.enrollment, identity.id, enrollment, {
        usernameField: 'enrollment.updb',
      });
    if (op !== 'delete') {
      // A disabled identity keeps nothing: its API sessions end, and with them its sessions and tunnels.
      if (identity.disabled) await endApiSessionsOf(ctx, identity.id);
      ctx.events.emit('identity.changed', identity.id);
      return;
    }
    // Its enrollments go with it by the store's foreign key, in this same transaction.
    await ctx.store.authenticators.deleteByIdentity(identity.id);
    await endApiSessionsOf(ctx, identity.id);
    ctx.events.emit('identity.deleted', identity.id);
  }
}

/**
 * A write's `disabledAt` and `disabledUntil`: kept while the identity stays disabled (an edit of its name does
 * not restart or end a timed disable), now and none when a write disables it (a PATCH disables until enabled),
 * none when it is enabled.
 */
function disabledTimes(existing: Identity | undefined, disabled: boolean, now: Date) {
  if (!disabled) return { disabledAt: null, disabledUntil: null };
  if (existing?.disabled)
    return { disabledAt: existing.disabledAt ?? null, disabledUntil: existing.disabledUntil ?? null };
  return { disabledAt: now.toISOString(), disabledUntil: null };
}
