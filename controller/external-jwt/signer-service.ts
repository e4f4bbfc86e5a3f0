/**
 * External JWT signers' use cases, apart from HTTP: what a write must satisfy (one key source; a JWKS fetched
 * over https, or http on loopback only; a readable certificate; an issuer no other signer has; at most
 * MAX_SIGNERS signers; the auth policy created identities get exists), what a delete must not do (leave auth
 * policies naming the signer), and what a write sets off (the signer's cached keys are dropped; disabled or
 * deleted, its API sessions end).
 */
import { X509Certificate } from 'node:crypto';
import type { ControllerContext } from '../platform/context.js';
import type { AuthPolicy, ExternalJwtSigner } from '../model.js';
import { ApiError, validationError, type FieldCause } from '../api-error.js';
import { MAX_SIGNERS, type SignerKeys } from './signer-keys.js';
import { isSecureOrLoopback } from './signer-origins.js';
import { deleteApiSession } from '../auth/api-sessions.js';
import type { WriteMode } from '../http/crud.js';

/** A signer as a write asks for it (a PATCH's untouched fields are the stored ones). */
export type ExternalJwtSignerDraft = Omit<ExternalJwtSigner, 'id' | 'createdAt' | 'updatedAt'> & {
  enrollToCertEnabled: boolean;
};

export class ExternalJwtSignerService {
  constructor(
    private readonly ctx: ControllerContext,
    readonly keys: SignerKeys,
  ) {}

  async prepare(
    draft: ExternalJwtSignerDraft,
    existing: ExternalJwtSigner | undefined,
    id: string,
    now: Date,
  ): Promise<ExternalJwtSigner> {
    const problems: FieldCause[] = [];
    const { jwksEndpoint, certPem } = draft;
    if (!jwksEndpoint && !certPem)
      problems.push({ field: 'jwksEndpoint', reason: 'a jwksEndpoint or a certPem is required' });
    if (jwksEndpoint && certPem)
      problems.push({ field: 'certPem', reason: 'give a jwksEndpoint or a certPem, not both' });
    if (jwksEndpoint) {
      const why = fetchableUrlProblem(jwksEndpoint);
      if (why) problems.push({ field: 'jwksEndpoint', reason: why, value: jwksEndpoint });
    }
    if (certPem && !readableCertificate(certPem))
      problems.push({ field: 'certPem', reason: 'is not a PEM certificate' });
    if (draft.externalAuthUrl && !isUrl(draft.externalAuthUrl))
      problems.push({
        field: 'externalAuthUrl',
        reason: 'must be an absolute URL',
        value: draft.externalAuthUrl,
      });
    if (draft.enrollToCertEnabled)
      problems.push({
        field: 'enrollToCertEnabled',
        reason: 'is not supported; enrollToTokenEnabled creates identities that sign in with the provider',
        value: true,
      });
    if (draft.enrollToTokenEnabled && !draft.useExternalId)
      problems.push({
        field: 'enrollToTokenEnabled',
        reason: 'needs useExternalId: a created identity is found again by its externalId',
        value: true,
      });
    const policyId = draft.enrollAuthPolicyId;
    if (policyId && !(await this.ctx.store.authPolicies.get(policyId)))
      problems.push({
        field: 'enrollAuthPolicyId',
        reason: `no auth policy with id '${policyId}'`,
        value: policyId,
      });
    const { items: signers } = await this.ctx.store.externalJwtSigners.list({ limit: 1000, offset: 0 });
    if (signers.some((s) => s.id !== id && s.issuer === draft.issuer))
      problems.push({
        field: 'issuer',
        reason: 'must be unique; another external JWT signer already uses it',
        value: draft.issuer,
      });
    if (!existing && signers.length >= MAX_SIGNERS)
      problems.push({ field: 'name', reason: `at most ${MAX_SIGNERS} external JWT signers may exist` });
    if (problems.length) throw validationError(problems);
    return {
      id,
      name: draft.name,
      enabled: draft.enabled,
      issuer: draft.issuer,
      audience: draft.audience,
      jwksEndpoint: jwksEndpoint ?? null,
      certPem: certPem ?? null,
      kid: draft.kid ?? null,
      claimsProperty: draft.claimsProperty || 'sub',
      useExternalId: draft.useExternalId,
      clientId: draft.clientId ?? null,
      scopes: draft.scopes,
      externalAuthUrl: draft.externalAuthUrl ?? null,
      targetToken: draft.targetToken ?? null,
      enrollToTokenEnabled: draft.enrollToTokenEnabled,
      enrollNameClaimsSelector: draft.enrollNameClaimsSelector ?? null,
      enrollAttributeClaimsSelector: draft.enrollAttributeClaimsSelector ?? null,
      enrollAuthPolicyId: policyId ?? null,
      tags: draft.tags,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  /** Before a delete, in its transaction: auth policies naming the signer keep it (409). */
  async beforeDelete(signer: ExternalJwtSigner): Promise<void> {
    const { items } = await this.ctx.store.authPolicies.list({ limit: 1000, offset: 0 });
    const users = items.filter((p) => namesSigner(p, signer.id));
    if (users.length)
      throw new ApiError(
        409,
        'CAN_NOT_DELETE_REFERENCED_ENTITY',
        `The external JWT signer is named by ${users.length} auth policies`,
      );
  }

  /**
   * After any write, in its transaction: keys fetched for the old settings go; a signer disabled or deleted
   * ends the API sessions it opened (and with them their sessions and tunnels) once the write commits.
   * Otherwise nobody's access changes (a signer decides who may sign in, not what a session may reach).
   */
  async written(signer: ExternalJwtSigner, op: WriteMode | 'delete'): Promise<void> {
    this.keys.forget(signer.id);
    if (op !== 'delete' && signer.enabled) return;
    for (const session of await this.ctx.store.apiSessions.listByAuthenticator(signer.id))
      await deleteApiSession(this.ctx, session);
  }
}

function namesSigner(policy: AuthPolicy, signerId: string): boolean {
  return (
    policy.primary.extJwt.allowedSigners.includes(signerId) ||
    policy.secondary.requireExtJwtSigner === signerId
  );
}

function isUrl(text: string): boolean {
  return URL.canParse(text);
}

/**
 * Keys fetched over plain http could be swapped by anyone on the path, and every token they "verify" with
 * them accepted: https only, except on loopback (a provider on the same host, tests).
 */
function fetchableUrlProblem(text: string): string | undefined {
  if (!URL.canParse(text)) return 'must be an absolute URL';
  return isSecureOrLoopback(new URL(text)) ? undefined : 'must be an https URL (http only on loopback)';
}

function readableCertificate(pem: string): boolean {
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}
