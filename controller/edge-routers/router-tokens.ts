/**
 * Router secrets and one-time enrollment tokens: random, shown once, stored only as SHA-256, compared in
 * constant time. A token expires (`routerEnrollmentSeconds`, 24 h by default) and is cleared when redeemed.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ControllerContext } from '../platform/context.js';
import type { EdgeRouter } from '../model.js';

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Hex, not base64url: an administrator pastes the token after `--enroll`, and one starting with `-` (as a
 * base64url token does one time in 32) would be read as an option.
 */
export const newSecret = () => randomBytes(32).toString('hex');

export function sameHash(hash: string | null, text: string): boolean {
  if (!hash) return false;
  const a = Buffer.from(hash, 'hex');
  const b = Buffer.from(sha256Hex(text), 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Derives a router's token from a nonce (EnrollmentAuthority.routerToken); the routes pass it so the token
 * can be shown again until redeemed. Without one (the embedded router enrolls itself at once) it is random.
 */
export type RouterTokenDeriver = (routerId: string, nonce: string) => string;

/** A fresh token for the router `routerId`: the fields to store, and the token to show. */
export function issueEnrollment(
  ctx: ControllerContext,
  now: Date,
  routerId?: string,
  derive?: RouterTokenDeriver,
) {
  const nonce = derive && routerId !== undefined ? randomBytes(16).toString('hex') : null;
  const token = nonce !== null ? derive!(routerId!, nonce) : newSecret();
  const expires = new Date(now.getTime() + ctx.config.routerEnrollmentSeconds * 1000);
  const fields: Pick<
    EdgeRouter,
    | 'enrollmentTokenHash'
    | 'enrollmentNonce'
    | 'enrollmentCreatedAt'
    | 'enrollmentExpiresAt'
    | 'isVerified'
    | 'fingerprint'
    | 'certPem'
    | 'secretHash'
  > = {
    enrollmentTokenHash: sha256Hex(token),
    enrollmentNonce: nonce,
    enrollmentCreatedAt: now.toISOString(),
    enrollmentExpiresAt: expires.toISOString(),
    isVerified: false,
    fingerprint: null,
    certPem: null,
    secretHash: null,
  };
  return { token, fields, expiresAt: expires.toISOString() };
}
