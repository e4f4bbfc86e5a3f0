/**
 * Edge-session tokens, never stored. A session's token is derived from its id with HMAC-SHA-256 under a key
 * derived (HKDF) from the master key, which lives outside the database; the store keeps only the token's
 * SHA-256, which is also what routers are told. So a copy of the database cannot be replayed at a router, yet
 * the controller can hand an existing session's token back to the API session that owns it, as OpenZiti does
 * (`POST /sessions` for a session that exists, `GET /sessions/{id}`), without storing it.
 *
 * The token keeps the shape of a random UUID (version 4): 122 bits of the HMAC.
 */
import { createHash, createHmac, hkdfSync } from 'node:crypto';

/** SHA-256 of a token, lowercase hex: the form the store and the routers know it by. */
export const tokenHashOf = (token: string): string => createHash('sha256').update(token).digest('hex');

export class SessionTokens {
  private key: Buffer | undefined;

  /** `masterKey` is read on first use only (a controller that never grants a session makes no key file). */
  constructor(private readonly masterKey: () => Buffer) {}

  /** The token of the session with this id. */
  tokenOf(sessionId: string): string {
    this.key ??= Buffer.from(
      hkdfSync('sha256', this.masterKey(), Buffer.alloc(0), 'postern/edge-session-token/hmac-sha256/v1', 32),
    );
    const mac = createHmac('sha256', this.key).update(sessionId, 'utf8').digest().subarray(0, 16);
    mac[6] = (mac[6]! & 0x0f) | 0x40;
    mac[8] = (mac[8]! & 0x3f) | 0x80;
    const hex = mac.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /**
   * Whether this controller can hand out the token of a stored session: false when the session was made
   * under another master key (an instance of the same database started without the shared key, or a key
   * restored from elsewhere).
   */
  reissues(session: { id: string; tokenHash: string }): boolean {
    return tokenHashOf(this.tokenOf(session.id)) === session.tokenHash;
  }
}
