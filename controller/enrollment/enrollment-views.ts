/**
 * Enrollments as the management API shows them: OpenZiti's `enrollmentDetail`, and the identity's
 * `enrollment` field (`{ott: {...}}`, `{updb: {...}}`). An outstanding enrollment shows its token and JWT
 * until it is used, expired ones included, with their past `expiresAt`: the administrator sees that it must
 * be refreshed (`POST /enrollments/<id>/refresh`), and the old token is refused anyway.
 */
import type { ControllerContext } from '../context.js';
import type { Enrollment } from '../model.js';
import type { Store } from '../store/repository.js';
import { byIdentity } from '../store/by-identity.js';
import { iso, selfLinks } from '../http/envelope.js';
import { ref } from '../routes/management/refs.js';
import { maybeEnrollmentAuthorityOf, type EnrollmentAuthority } from './enrollment-authority.js';

// Defined with the wire contract the agent and the console share (src/api/schemas-enrollment.ts).
export {
  EnrollmentDetailSchema as EnrollmentDetail,
  IdentityEnrollmentsSchema as IdentityEnrollments,
} from '../../src/api/schemas-enrollment.js';

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
 * are one read for the whole page. Every identity is in the answer; in a context where enrollment is not
 * installed each field is empty and nothing is read.
 */
export async function identityEnrollmentsWireOf(
  ctx: ControllerContext,
  identityIds: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const authority = maybeEnrollmentAuthorityOf(ctx);
  if (!authority) return new Map(identityIds.map((id) => [id, {}]));
  const outstanding = byIdentity(
    await ctx.store.enrollments.listOutstandingByIdentities(identityIds, SHOWN_PER_IDENTITY),
  );
  return new Map(
    identityIds.map((id) => [id, identityEnrollmentsToWire(authority, outstanding.get(id) ?? [])]),
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
