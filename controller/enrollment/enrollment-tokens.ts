/**
 * Enrollment tokens. The store keeps only a token's SHA-256 (what a redemption looks it up by) and a random
 * nonce; the token itself is an HMAC of the enrollment's id and nonce under a key derived from the
 * controller CA's private key (outside the database). So an administrator can be shown an outstanding
 * enrollment's token and JWT again, as OpenZiti shows them on the identity, while a copy of the database
 * alone holds nothing that enrolls. A refresh draws a new nonce: the old token stops matching at once.
 *
 * Tokens are written as UUIDs (122 random bits), the form OpenZiti's clients send as `?token=`.
 */
import { createHash, createHmac, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

export type TokenKey = Buffer;

/** The HMAC key, from the CA's key by HKDF with a label of its own (the key also signs; uses stay apart). */
export function tokenKeyFrom(caPrivateKey: KeyObject): TokenKey {
  const ikm = caPrivateKey.export({ type: 'pkcs8', format: 'der' });
  return Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'postern/enrollment-token/v1', 32));
}

export const newNonce = () => randomBytes(16).toString('hex');

export function deriveToken(key: TokenKey, enrollmentId: string, nonce: string): string {
  const bytes = createHmac('sha256', key).update(`${enrollmentId}\n${nonce}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What the store keeps and looks a presented token up by (any case: a UUID's hex digits may come upper). */
export const hashToken = (token: string) => createHash('sha256').update(token.toLowerCase()).digest('hex');
