/**
 * Asking for an enrollment: the `enrollment` field of an identity create (`{ott: true}` or
 * `{updb: "<username>"}`, one method) and `POST /enrollments`, checked the same way and stored in the
 * caller's transaction.
 */
import { recordAudit } from '../audit/audit-trail.js';
import type { ControllerContext } from '../platform/context.js';
import type { Enrollment, EnrollmentMethod } from '../model.js';
import { ApiError, validationError } from '../api-error.js';
import { UniqueViolation } from '../store/repository.js';
import type { EnrollmentAuthority } from './enrollment-authority.js';
import { serializeSignInChanges } from '../auth/sign-in-changes.js';

export interface RequestedEnrollment {
  method: EnrollmentMethod;
  username: string | null;
}

/** The enrollment an identity create asks for, or undefined for none; a 400 naming the field otherwise. */
export function parseEnrollmentRequest(
  value: unknown,
  field = 'enrollment',
): RequestedEnrollment | undefined {
  const r = (value ?? {}) as { ott?: boolean; updb?: string | null; ottca?: string | null };
  if (r.ottca !== undefined && r.ottca !== null)
    throw validationError([
      {
        field: `${field}.ottca`,
        reason: 'enrollment with a third-party CA is not supported; use ott or updb',
      },
    ]);
  const ott = r.ott === true;
  const updb = r.updb !== undefined && r.updb !== null;
  if (ott && updb)
    throw validationError([{ field, reason: 'one enrollment method per identity: ott or updb, not both' }]);
  if (ott) return { method: 'ott', username: null };
  if (updb) return { method: 'updb', username: r.updb! };
  return undefined;
}

/** A 400 naming `field` when a password login has the username or a pending enrollment promises it. */
export async function checkUsernameFree(
  ctx: ControllerContext,
  username: string,
  field: string,
): Promise<void> {
  const taken = (await ctx.store.authenticators.getByUsername(username))
    ? 'a password login already has this username'
    : (await ctx.store.enrollments.pendingWithUsername(username))
      ? 'another pending enrollment already promises this username'
      : undefined;
  if (taken) throw validationError([{ field, reason: `must be unique: ${taken}`, value: username }]);
}

/**
 * Stores a new enrollment for the identity; call inside the transaction that needs it. 409 when one of
 * the same method is outstanding or the identity already has what it would create (checked one request at a
 * time per identity, sign-in-changes.ts).
 */
export async function addEnrollment(
  ctx: ControllerContext,
  authority: EnrollmentAuthority,
  identityId: string,
  requested: RequestedEnrollment,
  options: { expiresAt?: Date; usernameField: string },
): Promise<Enrollment> {
  const { store } = ctx;
  const { method } = requested;
  await serializeSignInChanges(store, identityId);
  if (
    (await store.enrollments.listOutstanding({ identityId, limit: 10, offset: 0 })).items.some(
      (e) => e.method === method,
    )
  )
    throw new ApiError(
      409,
      'ENROLLMENT_EXISTS',
      `The identity already has an outstanding ${method} enrollment; refresh or delete it instead`,
      { field: 'method', reason: `an outstanding ${method} enrollment exists`, value: method },
    );
  const kind = method === 'ott' ? 'cert' : 'updb';
  if ((await store.authenticators.listByIdentity(identityId)).some((a) => a.method === kind))
    throw new ApiError(
      409,
      'IDENTITY_ALREADY_ENROLLED',
      `The identity already has a ${kind} authenticator; delete it before enrolling again`,
      { field: 'method', reason: `the identity has a ${kind} authenticator`, value: method },
    );
  if (requested.username !== null) await checkUsernameFree(ctx, requested.username, options.usernameField);
  const enrollment = authority.issue(identityId, method, requested.username, options.expiresAt);
  try {
    await store.enrollments.create(enrollment);
  } catch (err) {
    if (!(err instanceof UniqueViolation)) throw err;
    throw validationError([
      { field: options.usernameField, reason: 'must be unique: another pending enrollment promises it' },
    ]);
  }
  await recordAudit(
    ctx,
    {
      type: 'enrollment.created',
      identityId,
      details: { enrollmentId: enrollment.id, method, expiresAt: enrollment.expiresAt.toISOString() },
    },
    ctx.clock.now(),
  );
  return enrollment;
}
