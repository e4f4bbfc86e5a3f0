/**
 * Sign-in with a token from an external JWT signer (`POST /authenticate?method=ext-jwt`, the token as
 * `Authorization: Bearer`), after token-verification.ts accepted it: the identity is the one whose
 * `externalId` (the signer's `useExternalId`) or id equals the signer's `claimsProperty` claim; with
 * `enrollToTokenEnabled`, a first sign-in creates it (exactly one, whatever runs at once: the store's unique
 * externalId decides, and the losers find the winner's). Its auth policy must allow this signer. With
 * `enrollAttributeClaimsSelector`, every sign-in maps that claim to role attributes through the identity
 * service, as an administrator's edit would. Refusals are 401 INVALID_AUTH; the log says why.
 *
 * Also the second factor an auth policy's `secondary.requireExtJwtSigner` asks of password and certificate
 * sign-ins: a token of that signer for the same identity, as the sign-in's bearer.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { JWTPayload } from 'jose';
import type { ControllerContext } from '../platform/context.js';
import type { AuthPolicy, ExternalJwtSigner, Identity } from '../model.js';
import { ApiError, invalidAuth } from '../api-error.js';
import { UniqueViolation } from '../store/repository.js';
import { draftOf, type IdentityService } from '../identities/identity-service.js';
import { claimAttributes, mergeClaimAttributes, readClaim } from './claims.js';
import type { SignerKeys } from './signer-keys.js';
import { verifyExternalToken } from './token-verification.js';

const MAX_NAME = 255;

export class ExternalJwtSignIn {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly keys: SignerKeys,
    private readonly identities: IdentityService,
  ) {}

  /** Who the bearer token signs in; `authenticatorId` is the signer's id (as OpenZiti records it). */
  async signIn(
    authorization: string | undefined,
    log: FastifyBaseLogger,
  ): Promise<{ authenticatorId: string; identity: Identity }> {
    const { signer, claims } = await verifyExternalToken(this.ctx, this.keys, bearerOf(authorization), log);
    const refuse = (why: string): never => {
      log.info({ signerId: signer.id, why }, 'external JWT authentication failed');
      throw invalidAuth();
    };
    const subject = readClaim(claims, signer.claimsProperty);
    if (typeof subject !== 'string' || subject === '' || subject.length > MAX_NAME)
      return refuse(
        `the token's ${signer.claimsProperty} claim is not a string of 1 to ${MAX_NAME} characters`,
      );
    let identity = await this.find(signer, subject);
    if (!identity && signer.enrollToTokenEnabled && signer.useExternalId)
      identity = await this.create(signer, subject, claims);
    if (!identity) return refuse('no identity matches the token');
    if (identity.disabled) return refuse('the identity is disabled');
    const why = await this.policyRefusal(identity, signer);
    if (why) return refuse(why);
    if (signer.enrollAttributeClaimsSelector)
      identity = await this.refreshAttributes(
        identity,
        claimAttributes(claims, signer.enrollAttributeClaimsSelector),
      );
    return { authenticatorId: signer.id, identity };
  }

  /** The second factor a policy's `requireExtJwtSigner` asks of a password or certificate sign-in. */
  async checkSecondFactor(
    identity: Identity,
    authorization: string | undefined,
    log: FastifyBaseLogger,
  ): Promise<void> {
    const policy = await policyOf(this.ctx, identity);
    const required = policy?.secondary.requireExtJwtSigner;
    if (!required) return;
    if (authorization === undefined) {
      log.info({ identityId: identity.id }, 'sign-in refused: the auth policy requires an external JWT too');
      throw new ApiError(
        401,
        'INVALID_AUTH',
        'The auth policy requires a token from an external JWT signer',
        {
          field: 'Authorization',
          reason: `a bearer token from external JWT signer '${required}' is required with this sign-in`,
        },
      );
    }
    const { signer, claims } = await verifyExternalToken(this.ctx, this.keys, bearerOf(authorization), log);
    const subject = readClaim(claims, signer.claimsProperty);
    const named = typeof subject === 'string' ? await this.find(signer, subject) : undefined;
    if (signer.id !== required || named?.id !== identity.id) {
      log.info({ identityId: identity.id, signerId: signer.id }, 'second factor token refused');
      throw invalidAuth();
    }
  }

  private find(signer: ExternalJwtSigner, subject: string): Promise<Identity | undefined> {
    return signer.useExternalId
      ? this.ctx.store.identityByExternalId(subject)
      : this.ctx.store.identities.get(subject);
  }

  /** Why the identity's auth policy refuses a sign-in by this signer, if it does. */
  private async policyRefusal(identity: Identity, signer: ExternalJwtSigner): Promise<string | undefined> {
    const policy = await policyOf(this.ctx, identity);
    if (!policy) return undefined;
    const { allowed, allowedSigners } = policy.primary.extJwt;
    if (!allowed) return "the identity's auth policy does not allow external JWT sign-in";
    // An empty list allows every signer, as in OpenZiti.
    if (allowedSigners.length && !allowedSigners.includes(signer.id))
      return "the identity's auth policy does not allow this external JWT signer";
    const required = policy.secondary.requireExtJwtSigner;
    // One bearer token per sign-in: a policy asking a second token of another signer cannot be met here.
    if (required && required !== signer.id)
      return "the identity's auth policy requires a token from another external JWT signer";
    return undefined;
  }

  /**
   * The first sign-in of a user the provider knows: a new identity named by the name claim. Several at once:
   * one create wins, the others hit the unique externalId (or name) and read the winner's identity.
   */
  private async create(signer: ExternalJwtSigner, subject: string, claims: JWTPayload): Promise<Identity> {
    const named = readClaim(claims, signer.enrollNameClaimsSelector ?? signer.claimsProperty);
    const name = (typeof named === 'string' && named.trim() ? named.trim() : subject).slice(0, MAX_NAME);
    const attributes = signer.enrollAttributeClaimsSelector
      ? claimAttributes(claims, signer.enrollAttributeClaimsSelector)
      : [];
    // Another identity may have the name already: the second try adds the subject, which is unique.
    for (const candidate of [name, `${name} (${subject})`.slice(0, MAX_NAME)]) {
      try {
        const identity = await this.identities.save({
          name: candidate,
          type: 'User',
          isAdmin: false,
          roleAttributes: attributes,
          authPolicyId: signer.enrollAuthPolicyId ?? 'default',
          externalId: subject,
          disabled: false,
          tags: {},
          enrollment: undefined,
          claimAttributes: attributes,
        });
        this.ctx.log.info(
          { identityId: identity.id, signerId: signer.id },
          'identity created at first sign-in',
        );
        return identity;
      } catch (err) {
        if (!(err instanceof UniqueViolation)) throw err;
        const winner = await this.ctx.store.identityByExternalId(subject);
        if (winner) return winner;
      }
    }
    throw new ApiError(409, 'COULD_NOT_CREATE_IDENTITY', 'No free name for the new identity');
  }

  private async refreshAttributes(identity: Identity, fromClaims: string[]): Promise<Identity> {
    const previous = identity.claimAttributes ?? [];
    const next = mergeClaimAttributes(identity.roleAttributes, previous, fromClaims);
    if (sameSet(next, identity.roleAttributes) && sameSet(previous, fromClaims)) return identity;
    return this.identities.save(
      { ...draftOf(identity), roleAttributes: next, claimAttributes: fromClaims },
      identity,
    );
  }
}

async function policyOf(ctx: ControllerContext, identity: Identity): Promise<AuthPolicy | undefined> {
  return (
    (await ctx.store.authPolicies.get(identity.authPolicyId)) ?? (await ctx.store.authPolicies.get('default'))
  );
}

/** The token of `Authorization: Bearer <token>`; 401 naming the header otherwise. */
function bearerOf(authorization: string | undefined): string {
  const match = /^Bearer +(\S+)$/i.exec(authorization ?? '');
  if (!match)
    throw new ApiError(401, 'INVALID_AUTH', 'The authentication request failed', {
      field: 'Authorization',
      reason: 'must be "Bearer <token>" with a token from an external JWT signer',
    });
  return match[1]!;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((x) => set.has(x));
}
