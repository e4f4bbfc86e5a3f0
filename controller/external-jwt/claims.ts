/**
 * Reading a verified token's claims: one by a selector (a claim's name, `groups`, or a JSON pointer into
 * nested claims, `/realm_access/roles`), and the role attributes a claim maps to (each string of it one
 * attribute), bounded by MAX_CLAIM_ATTRIBUTES.
 */
import type { JWTPayload } from 'jose';

/** attributes taken from one token at most (a user in thousands of groups must not bloat every decision) */
export const MAX_CLAIM_ATTRIBUTES = 100;
/** as the management API's role attributes: 1 to 256 characters, nothing that hides or reorders text */
const ATTRIBUTE = /^[^\p{Cc}\p{Cf}]{1,256}$/u;

export function readClaim(claims: JWTPayload, selector: string): unknown {
  if (!selector.startsWith('/')) return claims[selector];
  let at: unknown = claims;
  for (const raw of selector.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** The claim's value as role attributes: its strings, in order, without duplicates, at most the cap. */
export function claimAttributes(claims: JWTPayload, selector: string): string[] {
  const value = readClaim(claims, selector);
  const values = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const attributes = new Set<string>();
  for (const v of values) {
    if (attributes.size >= MAX_CLAIM_ATTRIBUTES) break;
    if (typeof v === 'string' && ATTRIBUTE.test(v)) attributes.add(v);
  }
  return [...attributes];
}

/**
 * The role attributes after a sign-in: the ones the previous sign-in mapped from claims are replaced by
 * today's, the ones an administrator set stay.
 */
export function mergeClaimAttributes(
  current: readonly string[],
  previousFromClaims: readonly string[],
  fromClaims: readonly string[],
): string[] {
  const previous = new Set(previousFromClaims);
  return [...new Set([...current.filter((a) => !previous.has(a)), ...fromClaims])];
}
