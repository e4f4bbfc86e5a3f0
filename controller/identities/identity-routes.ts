import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { ApiSession, Authenticator, Identity } from '../model.js';
import { entityBase, iso, selfLinks } from '../http/envelope.js';
import { IdentityCreate, IdentityDetail, IdentityPatch } from '../../src/api/resources/identities.js';
import { registerCrud, pick, type WriteMode } from '../http/crud.js';
import { ref } from '../http/refs.js';
import { preparedWire, type WireOf } from '../http/prepared-wire.js';
import { identityEnrollmentsWireOf, type EnrollmentAudience } from '../enrollment/enrollment-views.js';
import { byIdentity } from '../store/by-identity.js';
import type { EnrollmentAuthority } from '../enrollment/enrollment-authority.js';
import type { IdentityDraft, IdentityService } from './identity-service.js';
import { isDisabledNow } from '../identity-disabled.js';

/**
 * How a page of identities shows, with what other tables know about each (authenticators, API sessions, MFA,
 * enrollments, its auth policy's name): read for the whole page first, then rendered synchronously. Each of
 * those is one by-many-identities read for the page, so a page costs the same few queries whatever its size
 * (a read per row made a page of 25 cost about a hundred). Enrollments show through `authority` (none
 * without one).
 */
export async function identityWireOf(
  ctx: ControllerContext,
  identities: readonly Identity[],
  audience: EnrollmentAudience,
  authority: EnrollmentAuthority | undefined,
): Promise<WireOf<Identity>> {
  const { store } = ctx;
  const ids = identities.map((i) => i.id);
  const [policies, authenticators, sessions, mfaEnrolled, enrollments] = await Promise.all([
    store.authPolicies.getMany([...new Set(identities.map((i) => i.authPolicyId))]),
    store.authenticators.listByIdentities(ids),
    store.apiSessions.listByIdentities(ids),
    ctx.store.mfa.verifiedAmong(ids),
    identityEnrollmentsWireOf(ctx, ids, audience, authority),
  ]);
  const policyNames = new Map(policies.map((p) => [p.id, p.name]));
  const now = ctx.clock.now();
  const authenticatorsOf = byIdentity(authenticators);
  const sessionsOf = byIdentity(sessions);
  return (identity) => {
    const enrollment = enrollments.get(identity.id);
    if (!enrollment) throw new Error(`identity ${identity.id} is not in the page its view was loaded for`);
    const related = {
      authenticators: authenticatorsOf.get(identity.id) ?? [],
      sessions: sessionsOf.get(identity.id) ?? [],
      isMfaEnabled: mfaEnrolled.has(identity.id),
      enrollment,
    };
    return renderIdentity(identity, related, policyNames.get(identity.authPolicyId), now);
  };
}

/** One identity as the API shows it (`identityWireOf` for a page). */
export async function identityToWire(
  ctx: ControllerContext,
  identity: Identity,
  audience: EnrollmentAudience,
  authority: EnrollmentAuthority | undefined,
): Promise<Record<string, unknown>> {
  return (await identityWireOf(ctx, [identity], audience, authority))(identity);
}

function renderIdentity(
  identity: Identity,
  related: {
    authenticators: readonly Authenticator[];
    sessions: readonly ApiSession[];
    isMfaEnabled: boolean;
    enrollment: Record<string, unknown>;
  },
  authPolicyName: string | undefined,
  now: Date,
): Record<string, unknown> {
  const { authenticators, sessions } = related;
  const updb = authenticators.find((a) => a.method === 'updb');
  const cert = authenticators.find((a) => a.method === 'cert');
  const latest = sessions[sessions.length - 1];
  return {
    ...entityBase('identities', identity),
    type: {
      id: identity.type,
      name: identity.type,
      entity: 'identity-types',
      _links: selfLinks('identity-types', identity.type),
    },
    typeId: identity.type,
    isAdmin: identity.isAdmin,
    isDefaultAdmin: identity.isDefaultAdmin,
    isMfaEnabled: related.isMfaEnabled,
    roleAttributes: identity.roleAttributes,
    authPolicyId: identity.authPolicyId,
    authPolicy: ref('auth-policies', identity.authPolicyId, authPolicyName ?? identity.authPolicyId),
    authenticators: {
      ...(updb ? { updb: { id: updb.id, username: updb.username } } : {}),
      ...(cert ? { cert: { id: cert.id, fingerprint: cert.fingerprint } } : {}),
    },
    enrollment: related.enrollment,
    hasApiSession: sessions.length > 0,
    hasEdgeRouterConnection: false,
    edgeRouterConnectionStatus: 'unknown',
    // A timed disable past its end shows (and works) as enabled.
    disabled: isDisabledNow(identity, now),
    disabledAt: isDisabledNow(identity, now) ? (identity.disabledAt ?? null) : null,
    disabledUntil: isDisabledNow(identity, now) ? (identity.disabledUntil ?? null) : null,
    externalId: identity.externalId,
    envInfo: latest?.envInfo ?? {},
    sdkInfo: latest?.sdkInfo ?? {},
    lastActivityAt: iso(latest?.lastActivityAt),
    serviceHostingPrecedences: {},
    serviceHostingCosts: {},
    defaultHostingPrecedence: 'default',
    defaultHostingCost: 0,
    // OpenZiti's fine-grained admin permissions; Postern has only isAdmin, so none are granted beyond it.
    permissions: [],
  };
}

/** A create, PUT or PATCH body as the identity it asks for (OpenZiti's PUT clears what it leaves out). */
function readDraft(
  body: Record<string, unknown>,
  mode: WriteMode,
  existing: Identity | undefined,
): IdentityDraft {
  return {
    name: pick(body, 'name', mode, existing?.name, ''),
    type: pick(body, 'type', mode, existing?.type, 'Default'),
    isAdmin: pick(body, 'isAdmin', mode, existing?.isAdmin, false),
    roleAttributes: pick(body, 'roleAttributes', mode, existing?.roleAttributes, []) ?? [],
    authPolicyId:
      pick<string | null>(body, 'authPolicyId', mode, existing?.authPolicyId, 'default') ?? 'default',
    externalId: pick(body, 'externalId', mode, existing?.externalId, null),
    disabled: pick(body, 'disabled', mode, existing?.disabled, false),
    tags: pick(body, 'tags', mode, existing?.tags, {}),
    enrollment: body.enrollment,
  };
}

export function registerIdentities(
  app: Api,
  ctx: ControllerContext,
  service: IdentityService,
  enrollment: EnrollmentAuthority,
): void {
  const wire = preparedWire<Identity>('identities', (page) =>
    identityWireOf(ctx, page, 'secrets', enrollment),
  );
  registerCrud<Identity>(app, ctx, {
    collection: 'identities',
    tag: 'Identity',
    repo: ctx.store.identities,
    schemas: { create: IdentityCreate, update: IdentityCreate, patch: IdentityPatch, detail: IdentityDetail },
    prepare: wire.prepare,
    toWire: wire.toWire,
    build: (body, mode, existing, id, now) =>
      service.prepare(readDraft(body, mode, existing), existing, id, now),
    beforeDelete: (identity, options) => service.beforeDelete(identity, options),
    afterWrite: (identity, op) => service.written(identity, op),
  });
}
