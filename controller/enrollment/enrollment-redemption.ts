/**
 * Redeeming an enrollment token: `ott` with a CSR (a client certificate and a `cert` authenticator), `updb`
 * with a password (the identity's password login). A token works once: the enrollment is marked used in the
 * same transaction that stores the authenticator, by a write that only an unused enrollment passes, so of two
 * parallel redemptions exactly one wins. A refused attempt stores nothing.
 *
 * Errors are OpenZiti's: `INVALID_ENROLLMENT_TOKEN` (400, unknown or already used), `ENROLLMENT_EXPIRED`
 * (400), `COULD_NOT_PROCESS_CSR` (400, naming `csr`), `INVALID_ENROLL_METHOD` (400, naming `method`).
 */
import { recordAudit } from '../audit/audit-trail.js';
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { ControllerContext } from '../platform/context.js';
import type { CertAuthenticator, Enrollment, EnrollmentMethod, UpdbAuthenticator } from '../model.js';
import { ApiError, rateLimited, validationError } from '../api-error.js';
import { hashPassword } from '../auth/passwords.js';
import { GateFull } from '../platform/limits/work-gate.js';
import { UniqueViolation } from '../store/repository.js';
import { hashToken } from './enrollment-tokens.js';
import { CsrRefused, issueClientCertificate } from './client-certificates.js';
import type { EnrollmentAuthority } from './enrollment-authority.js';

/** A token that does not enroll: counts against the address, so tokens cannot be guessed. */
export class TokenRefused extends ApiError {}

const invalidToken = (why: string) =>
  new TokenRefused(400, 'INVALID_ENROLLMENT_TOKEN', `The supplied token is not valid: ${why}`, {
    field: 'token',
    reason: why,
  });

export interface Redeemer {
  ctx: ControllerContext;
  authority: EnrollmentAuthority;
  log: FastifyBaseLogger;
}

/**
 * The outstanding enrollment `token` names, for `method` when the client said which. A first look, to refuse
 * early and say why: the token is spent by `redeem`'s compare-and-set, not here.
 */
export async function findEnrollment(
  ctx: ControllerContext,
  token: string | undefined,
  method: string | undefined,
): Promise<Enrollment> {
  if (method !== undefined && method !== 'ott' && method !== 'updb')
    throw new ApiError(400, 'INVALID_ENROLL_METHOD', `Enrollment method '${method}' is not supported`, {
      field: 'method',
      reason: 'must be ott or updb',
      value: method,
    });
  if (!token)
    throw validationError([{ field: 'token', reason: 'is required: the `jti` of the enrollment JWT' }]);
  const enrollment = await ctx.store.enrollments.getByTokenHash(hashToken(token));
  if (!enrollment) throw invalidToken('unknown');
  if (enrollment.usedAt) throw invalidToken('already used');
  if (enrollment.expiresAt.getTime() <= ctx.clock.now().getTime())
    throw new TokenRefused(
      400,
      'ENROLLMENT_EXPIRED',
      `The window for this enrollment has expired (at ${enrollment.expiresAt.toISOString()}); ask for a new one`,
      { field: 'token', reason: `expired at ${enrollment.expiresAt.toISOString()}` },
    );
  if (method !== undefined && method !== enrollment.method)
    throw new ApiError(
      400,
      'INVALID_ENROLL_METHOD',
      `This token is for ${enrollment.method} enrollment, not ${method}`,
      { field: 'method', reason: `must be ${enrollment.method} for this token`, value: method },
    );
  return enrollment;
}

/** `ott`: a certificate for the CSR, and the identity's `cert` authenticator with its fingerprint. */
export async function redeemOtt(
  r: Redeemer,
  enrollment: Enrollment,
  csrPem: string | undefined,
): Promise<{ certPem: string; caPem: string }> {
  if (!csrPem?.trim())
    throw new ApiError(400, 'COULD_NOT_PROCESS_CSR', 'The supplied csr could not be processed', {
      field: 'csr',
      reason: 'is required: a PEM certificate request as the body (application/x-pem-file) or as "csr"',
    });
  const now = r.ctx.clock.now();
  let issued;
  try {
    issued = await issueClientCertificate(r.authority.ca, csrPem, enrollment.identityId, now);
  } catch (err) {
    if (!(err instanceof CsrRefused)) throw err;
    throw new ApiError(
      400,
      'COULD_NOT_PROCESS_CSR',
      `The supplied csr could not be processed: ${err.reason}`,
      {
        field: 'csr',
        reason: err.reason,
      },
    );
  }
  const authenticator: CertAuthenticator = {
    id: randomUUID(),
    identityId: enrollment.identityId,
    method: 'cert',
    fingerprint: issued.fingerprint,
    certPem: issued.certPem,
    createdAt: now,
    updatedAt: now,
  };
  await redeem(r.ctx, enrollment, 'cert', () => r.ctx.store.authenticators.create(authenticator));
  r.log.info(
    { identityId: enrollment.identityId, enrollmentId: enrollment.id, fingerprint: issued.fingerprint },
    'identity enrolled: client certificate issued',
  );
  return { certPem: issued.certPem, caPem: r.authority.ca.certPem };
}

/** `updb`: the identity's password login, with the enrollment's username and the password given. */
export async function redeemUpdb(
  r: Redeemer,
  enrollment: Enrollment,
  body: { username?: string; password?: string },
): Promise<void> {
  const { ctx } = r;
  const username = enrollment.username ?? '';
  if (body.username !== undefined && body.username !== username)
    throw validationError([
      { field: 'username', reason: 'must be the username this enrollment was made for, or left out' },
    ]);
  if (body.password === undefined) throw validationError([{ field: 'password', reason: 'is required' }]);
  const identity = await ctx.store.identities.get(enrollment.identityId);
  const policy = identity && (await ctx.store.authPolicies.get(identity.authPolicyId));
  // As for any password login: OpenZiti's least length (5), or the auth policy's when longer.
  const min = Math.max(5, policy?.primary.updb.minPasswordLength ?? 5);
  if (body.password.length < min)
    throw validationError([{ field: 'password', reason: `must be at least ${min} characters` }]);
  const password = body.password;
  // Anyone holding a token may cause a hash: it waits behind the same bound as sign-ins.
  const passwordHash = await ctx.passwordHashing
    .run(() => hashPassword(password))
    .catch((err: unknown) => {
      if (err instanceof GateFull) throw rateLimited(1, 'Too many password operations at once');
      throw err;
    });
  const now = ctx.clock.now();
  const authenticator: UpdbAuthenticator = {
    id: randomUUID(),
    identityId: enrollment.identityId,
    method: 'updb',
    username,
    passwordHash,
    createdAt: now,
    updatedAt: now,
  };
  await redeem(ctx, enrollment, 'updb', async () => {
    try {
      await ctx.store.authenticators.create(authenticator);
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err;
      throw new ApiError(
        409,
        'USERNAME_TAKEN',
        `The username '${username}' was given to another login meanwhile`,
        {
          field: 'username',
          reason: 'taken by another password login; ask for a new enrollment',
        },
      );
    }
  });
  r.log.info(
    { identityId: enrollment.identityId, enrollmentId: enrollment.id },
    'identity enrolled: password set',
  );
}

/**
 * Marks the enrollment used and stores what it makes, together or not at all, in one transaction. What is slow
 * (the certificate, the password hash) was made before: the transaction holds only store calls.
 */
async function redeem(
  ctx: ControllerContext,
  enrollment: Enrollment,
  kind: CertAuthenticator['method'] | UpdbAuthenticator['method'],
  store: () => Promise<void>,
): Promise<void> {
  const method: EnrollmentMethod = enrollment.method;
  await ctx.store.transaction(async () => {
    if (!(await ctx.store.enrollments.markUsed(enrollment, ctx.clock.now())))
      throw invalidToken('already used, replaced or expired');
    if ((await ctx.store.authenticators.listByIdentity(enrollment.identityId)).some((a) => a.method === kind))
      throw new ApiError(
        409,
        'IDENTITY_ALREADY_ENROLLED',
        `The identity already has a ${kind} authenticator; this ${method} enrollment cannot add another`,
        { field: 'token', reason: `the identity has a ${kind} authenticator` },
      );
    await store();
    await recordAudit(
      ctx,
      {
        type: 'enrollment.completed',
        identityId: enrollment.identityId,
        details: { enrollmentId: enrollment.id, method },
      },
      ctx.clock.now(),
    );
  });
}
