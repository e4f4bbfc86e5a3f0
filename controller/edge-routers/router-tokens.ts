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

/** A fresh token for `router`: the fields to store, and the token to show once. */
export function issueEnrollment(ctx: ControllerContext, now: Date) {
  const token = newSecret();
  const expires = new Date(now.getTime() + ctx.config.routerEnrollmentSeconds * 1000);
  const fields: Pick<
    EdgeRouter,
    | 'enrollmentTokenHash'
    | 'enrollmentCreatedAt'
    | 'enrollmentExpiresAt'
    | 'isVerified'
    | 'fingerprint'
    | 'certPem'
    | 'secretHash'
  > = {
    enrollmentTokenHash: sha256Hex(token),
    enrollmentCreatedAt: now.toISOString(),
    enrollmentExpiresAt: expires.toISOString(),
    isVerified: false,
    fingerprint: null,
    certPem: null,
    secretHash: null,
  };
  return { token, fields, expiresAt: expires.toISOString() };
}
