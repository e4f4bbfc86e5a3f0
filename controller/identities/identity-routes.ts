import type { Api } from '../http/typed-app.js';
import type { ControllerContext } from '../platform/context.js';
import type { ApiSession, Authenticator, Identity } from '../model.js';
import { ApiError, validationError, type FieldCause } from '../api-error.js';
import { entityBase, iso, selfLinks } from '../http/envelope.js';
import { IdentityCreate, IdentityDetail, IdentityPatch } from '../../src/api/resources/identities.js';
import { endApiSessionsOf } from '../auth/api-sessions.js';
import { releasePolicyReferences } from '../catalogue/policy-references.js';
import { registerCrud, pick } from '../http/crud.js';
import { normaliseAttributes } from '../catalogue/roles.js';
import { ref } from '../http/refs.js';
import { preparedWire, type WireOf } from '../http/prepared-wire.js';
import { enrollmentAuthorityOf } from '../enrollment/enrollment-authority.js';
import { identityEnrollmentsWireOf, type EnrollmentAudience } from '../enrollment/enrollment-views.js';
import { byIdentity } from '../store/by-identity.js';
import {
  addEnrollment,
  checkUsernameFree,
  parseEnrollmentRequest,
  type RequestedEnrollment,
} from '../enrollment/identity-enrollment.js';

/**
 * How a page of identities shows, with what other tables know about each (authenticators, API sessions, MFA,
 * enrollments, its auth policy's name): read for the whole page first, then rendered synchronously. Each of
 * those is one by-many-identities read for the page, so a page costs the same few queries whatever its size
 * (a read per row made a page of 25 cost about a hundred).
 */
export async function identityWireOf(
  ctx: ControllerContext,
  identities: readonly Identity[],
  audience: EnrollmentAudience,
): Promise<WireOf<Identity>> {
  const { store } = ctx;
  const ids = identities.map((i) => i.id);
  const [policies, authenticators, sessions, mfaEnrolled, enrollments] = await Promise.all([
    store.authPolicies.getMany([...new Set(identities.map((i) => i.authPolicyId))]),
    store.authenticators.listByIdentities(ids),
    store.apiSessions.listByIdentities(ids),
    ctx.store.mfa.verifiedAmong(ids),
    identityEnrollmentsWireOf(ctx, ids, audience),
  ]);
  const policyNames = new Map(policies.map((p) => [p.id, p.name]));
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
    return renderIdentity(identity, related, policyNames.get(identity.authPolicyId));
  };
}

/** One identity as the API shows it (`identityWireOf` for a page). */
export async function identityToWire(
  ctx: ControllerContext,
  identity: Identity,
  audience: EnrollmentAudience,
): Promise<Record<string, unknown>> {
  return (await identityWireOf(ctx, [identity], audience))(identity);
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
    disabled: identity.disabled,
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

export function registerIdentities(app: Api, ctx: ControllerContext): void {
  // The enrollment a create asked for, stored by afterWrite in the create's own transaction.
  const requestedEnrollment = new WeakMap<Identity, RequestedEnrollment>();
  const wire = preparedWire<Identity>('identities', (page) => identityWireOf(ctx, page, 'secrets'));
  registerCrud<Identity>(app, ctx, {
    collection: 'identities',
    tag: 'Identity',
    repo: ctx.store.identities,
    schemas: { create: IdentityCreate, update: IdentityCreate, patch: IdentityPatch, detail: IdentityDetail },
    prepare: wire.prepare,
    toWire: wire.toWire,
    async build(body, mode, existing, id, now) {
      const problems: FieldCause[] = [];
      const authPolicyId =
        pick<string | null>(body, 'authPolicyId', mode, existing?.authPolicyId, 'default') ?? 'default';
      if (!(await ctx.store.authPolicies.get(authPolicyId))) {
        problems.push({
          field: 'authPolicyId',
          reason: `no auth policy with id '${authPolicyId}'`,
          value: authPolicyId,
        });
      }
      const isAdmin = pick(body, 'isAdmin', mode, existing?.isAdmin, false);
      if (existing?.isDefaultAdmin && !isAdmin) {
        problems.push({
          field: 'isAdmin',
          reason: 'the default admin must stay an administrator',
          value: false,
        });
      }
      if (problems.length) throw validationError(problems);
      if (mode !== 'create' && body.enrollment !== undefined)
        throw validationError([
          {
            field: 'enrollment',
            reason: 'is taken only when the identity is created; POST /enrollments issues one later',
          },
        ]);
      const enrollment = mode === 'create' ? parseEnrollmentRequest(body.enrollment) : undefined;
      if (enrollment?.username) await checkUsernameFree(ctx, enrollment.username, 'enrollment.updb');
      const disabled = pick(body, 'disabled', mode, existing?.disabled, false);
      // Disabling the default admin would lock every administrator out of a fresh controller for good.
      if (existing?.isDefaultAdmin && disabled)
        throw new ApiError(
          409,
          'CAN_NOT_DISABLE_DEFAULT_ADMIN',
          'The default admin identity cannot be disabled',
        );
      const identity: Identity = {
        id,
        name: pick(body, 'name', mode, existing?.name, ''),
        type: pick(body, 'type', mode, existing?.type, 'Default'),
        isAdmin,
        isDefaultAdmin: existing?.isDefaultAdmin ?? false,
        roleAttributes: normaliseAttributes(
          pick(body, 'roleAttributes', mode, existing?.roleAttributes, []) ?? [],
        ),
        authPolicyId,
        externalId: pick(body, 'externalId', mode, existing?.externalId, null),
        disabled,
        tags: pick(body, 'tags', mode, existing?.tags, {}),
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      if (enrollment) requestedEnrollment.set(identity, enrollment);
      return identity;
    },
    async beforeDelete(identity, { cascade }) {
      if (identity.isDefaultAdmin) {
        throw new ApiError(
          409,
          'CAN_NOT_DELETE_REFERENCED_ENTITY',
          'The default admin identity cannot be deleted',
        );
      }
      if (await releasePolicyReferences(ctx, 'identity', identity, 'identity', cascade))
        ctx.events.emit('policy.changed');
    },
    // Awaited inside the write's transaction: on a delete, the identity, its authenticators, its API sessions
    // (with their sessions) and, with ?cascade=true, the policies' references to it go together or not at all.
    async afterWrite(identity, op) {
      const enrollment = op === 'create' ? requestedEnrollment.get(identity) : undefined;
      if (enrollment)
        await addEnrollment(ctx, enrollmentAuthorityOf(ctx), identity.id, enrollment, {
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
    },
  });
}
