/**
 * An external sign-in's token, checked as a careful resource server does, with `jose` (no hand-written JWT
 * code): the signer is the enabled one whose `issuer` the token names; then the signature against that
 * signer's keys, an algorithm from ALLOWED_ALGORITHMS only (never `none`; never HS*, which would let anyone
 * holding the public key sign), `iss`, `aud`, and `exp`/`nbf` within CLOCK_TOLERANCE_SECONDS of the
 * controller's clock (`exp` is required). Every refusal is a 401 INVALID_AUTH; why is logged, never the token.
 */
import type { FastifyBaseLogger } from 'fastify';
import { decodeJwt, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { ControllerContext } from '../platform/context.js';
import type { ExternalJwtSigner } from '../model.js';
import { invalidAuth } from '../api-error.js';
import { safeForLog } from '../logger.js';
import type { SignerKeys } from './signer-keys.js';

/** asymmetric signatures only: RSA PKCS#1 v1.5, RSA-PSS and ECDSA */
export const ALLOWED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
];
/** how far the provider's clock and ours may disagree on `exp` and `nbf` */
export const CLOCK_TOLERANCE_SECONDS = 60;

export interface VerifiedToken {
  signer: ExternalJwtSigner;
  claims: JWTPayload;
}

/** The signer and claims of a valid token; throws 401 INVALID_AUTH otherwise. */
export async function verifyExternalToken(
  ctx: ControllerContext,
  keys: SignerKeys,
  token: string,
  log: FastifyBaseLogger,
): Promise<VerifiedToken> {
  const refuse = (why: string, extra: Record<string, unknown> = {}): never => {
    log.info({ ...extra, why }, 'external JWT authentication failed');
    throw invalidAuth();
  };
  let issuer: unknown;
  let kid: unknown;
  try {
    // Unverified, only to pick the signer whose keys then verify it.
    issuer = decodeJwt(token).iss;
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return refuse('the token is not a JWT');
  }
  if (typeof issuer !== 'string') return refuse('the token has no issuer');
  const signer = await signerFor(ctx, issuer);
  if (!signer)
    return refuse('no enabled external JWT signer has this issuer', { issuer: safeForLog(issuer) });
  if (signer.certPem && signer.kid && kid !== undefined && kid !== signer.kid)
    return refuse("the token names a key other than the signer's", { signerId: signer.id });
  try {
    const { payload } = await jwtVerify(token, keys.for(signer) as never, {
      issuer: signer.issuer,
      audience: signer.audience,
      algorithms: ALLOWED_ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['exp'],
      currentDate: ctx.clock.now(),
    });
    return { signer, claims: payload };
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string };
    return refuse(message ?? 'the token does not verify', { signerId: signer.id, code });
  }
}

async function signerFor(ctx: ControllerContext, issuer: string): Promise<ExternalJwtSigner | undefined> {
  // Issuers are unique among signers (signer-service.ts) and signers few (MAX_SIGNERS): the list is cached.
  const { items } = await ctx.store.externalJwtSigners.list({ limit: 1000, offset: 0 });
  return items.find((s) => s.enabled && s.issuer === issuer);
}
