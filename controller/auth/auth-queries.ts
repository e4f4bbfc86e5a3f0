import type { ApiSession, Identity } from '../model.js';
import type { ControllerContext } from '../platform/context.js';

/** The TOTP auth query OpenZiti clients know how to answer. */
export interface AuthQuery {
  typeId: 'MFA';
  provider: 'ziti';
  httpMethod: 'POST';
  httpUrl: './authenticate/mfa';
  minLength: number;
  maxLength: number;
  format: 'numeric' | 'alphaNumeric';
  isTotpEnrolled: boolean;
}

/** TOTP is owed when the login found a verified enrollment or the identity's auth policy demands it. */
export async function isTotpRequired(
  ctx: ControllerContext,
  session: ApiSession,
  identity: Identity,
): Promise<boolean> {
  if (session.isMfaRequired) return true;
  const policy =
    (await ctx.store.authPolicies.get(identity.authPolicyId)) ??
    (await ctx.store.authPolicies.get('default'));
  return policy?.secondary.requireTotp === true;
}

export async function outstandingAuthQueries(
  ctx: ControllerContext,
  session: ApiSession,
  identity: Identity,
): Promise<AuthQuery[]> {
  if (session.isMfaComplete || !(await isTotpRequired(ctx, session, identity))) return [];
  return [
    {
      typeId: 'MFA',
      provider: 'ziti',
      httpMethod: 'POST',
      httpUrl: './authenticate/mfa',
      // 6-digit TOTP codes and 12-character recovery codes (dashes optional) are both accepted.
      minLength: 6,
      maxLength: 14,
      format: 'alphaNumeric',
      isTotpEnrolled: await ctx.store.mfa.isVerified(identity.id),
    },
  ];
}
