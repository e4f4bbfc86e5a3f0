/**
 * Enrollments as the management API shows them: OpenZiti's `enrollmentDetail`, and the identity's
 * `enrollment` field (`{ott: {...}}`, `{updb: {...}}`). An outstanding enrollment shows its token and JWT
 * until it is used, expired ones included, with their past `expiresAt`: the administrator sees that it must
 * be refreshed (`POST /enrollments/<id>/refresh`), and the old token is refused anyway.
 *
 * The client API shows an identity's own enrollments as `{method, expiresAt}` only (`ENROLLMENT_SUMMARY`):
 * a token or JWT there would turn a stolen API session into a certificate or password login that outlives
 * the password reset meant to end it.
 */
import type { ControllerContext } from '../platform/context.js';
import type { Enrollment } from '../model.js';
import type { Store } from '../store/repository.js';
import { byIdentity } from '../store/by-identity.js';
import { iso, selfLinks } from '../http/envelope.js';
import { ref } from '../http/refs.js';
import type { EnrollmentAuthority } from './enrollment-authority.js';

// Defined with the wire contract the agent and the console share (src/api/schemas-enrollment.ts).
export {
  EnrollmentDetailSchema as EnrollmentDetail,
  IdentityEnrollmentsSchema as IdentityEnrollments,
  IdentityEnrollmentSummariesSchema as IdentityEnrollmentSummaries,
} from '../../src/api/schemas-enrollment.js';

/**
 * Who an identity's `enrollment` field is rendered for: `secrets` (the management API) shows tokens and JWTs,
 * `summary` (the client API, the identity itself) only each outstanding enrollment's method and expiry.
 */
export type EnrollmentAudience = 'secrets' | 'summary';

/** The names of the enrollments' identities, by id, read at once (for `enrollmentToWire`). */
export async function identityNamesOf(
  store: Store,
  enrollments: readonly Enrollment[],
): Promise<Map<string, string>> {
  const identities = await store.identities.getMany([...new Set(enrollments.map((e) => e.identityId))]);
  return new Map(identities.map((i) => [i.id, i.name]));
}

/** `identityName`: the enrollment's identity's (see identityNamesOf); its id stands in when it is unknown. */
export function enrollmentToWire(authority: EnrollmentAuthority, e: Enrollment, identityName = e.identityId) {
  return {
    id: e.id,
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
    _links: selfLinks('enrollments', e.id),
    tags: {},
    method: e.method,
    token: authority.tokenOf(e),
    jwt: authority.jwtOf(e),
    expiresAt: iso(e.expiresAt),
    issuedAt: iso(e.issuedAt),
    identityId: e.identityId,
    identity: ref('identities', e.identityId, identityName),
    caId: null,
    ...(e.username === null ? {} : { username: e.username }),
  };
}

/** How many outstanding enrollments an identity's `enrollment` field is made from (one per method in practice). */
const SHOWN_PER_IDENTITY = 10;

/**
 * The `enrollment` field of each of these identities (a page), by identity id: their outstanding enrollments
 * are one read for the whole page. Every identity is in the answer; without an enrollment authority (a
 * controller built without enrollment) each field is empty and nothing is read.
 */
export async function identityEnrollmentsWireOf(
  ctx: ControllerContext,
  identityIds: readonly string[],
  audience: EnrollmentAudience,
  authority: EnrollmentAuthority | undefined,
): Promise<Map<string, Record<string, unknown>>> {
  if (!authority) return new Map(identityIds.map((id) => [id, {}]));
  const outstanding = byIdentity(
    await ctx.store.enrollments.listOutstandingByIdentities(identityIds, SHOWN_PER_IDENTITY),
  );
  return new Map(
    identityIds.map((id) => {
      const enrollments = outstanding.get(id) ?? [];
      const wire =
        audience === 'secrets'
          ? identityEnrollmentsToWire(authority, enrollments)
          : identityEnrollmentSummaries(enrollments);
      return [id, wire];
    }),
  );
}

/** What the identity itself sees of its outstanding enrollments: which methods, until when; no secret. */
function identityEnrollmentSummaries(outstanding: readonly Enrollment[]): Record<string, unknown> {
  return Object.fromEntries(
    outstanding.map((e) => [e.method, { method: e.method, expiresAt: iso(e.expiresAt) }]),
  );
}

/** One identity's `enrollment` field from its outstanding enrollments, oldest first: each under its method. */
function identityEnrollmentsToWire(
  authority: EnrollmentAuthority,
  outstanding: readonly Enrollment[],
): Record<string, unknown> {
  return Object.fromEntries(
    outstanding.map((e) => [
      e.method,
      {
        id: e.id,
        token: authority.tokenOf(e),
        jwt: authority.jwtOf(e),
        expiresAt: iso(e.expiresAt),
        issuedAt: iso(e.issuedAt),
        ...(e.username === null ? {} : { username: e.username }),
      },
    ]),
  );
}
