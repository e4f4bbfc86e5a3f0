/** Edge-session tokens derived from the session id under the master key, never stored. */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionTokens, tokenHashOf } from '../../../controller/platform/keys/session-tokens.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('SessionTokens', () => {
  it('derives the same token for a session id under one key, another under another key or id', () => {
    const key = randomBytes(32);
    const tokens = new SessionTokens(() => key);
    const token = tokens.tokenOf('session-1');
    expect(token).toMatch(UUID_V4);
    expect(new SessionTokens(() => Buffer.from(key)).tokenOf('session-1')).toBe(token);
    expect(tokens.tokenOf('session-2')).not.toBe(token);
    expect(new SessionTokens(() => randomBytes(32)).tokenOf('session-1')).not.toBe(token);
  });

  it('tells whether it can hand out a stored session token, by its hash', () => {
    const tokens = new SessionTokens(() => randomBytes(32));
    const tokenHash = tokenHashOf(tokens.tokenOf('s'));
    expect(tokenHash).toBe(createHash('sha256').update(tokens.tokenOf('s')).digest('hex'));
    expect(tokens.reissues({ id: 's', tokenHash })).toBe(true);
    expect(tokens.reissues({ id: 'other', tokenHash })).toBe(false);
    expect(tokens.reissues({ id: 's', tokenHash: tokenHashOf('a random token stored before') })).toBe(false);
  });

  it('reads the master key once, on first use', () => {
    let reads = 0;
    const tokens = new SessionTokens(() => {
      reads++;
      return randomBytes(32);
    });
    expect(reads).toBe(0);
    const first = tokens.tokenOf('s');
    expect(tokens.tokenOf('s')).toBe(first);
    expect(reads).toBe(1);
  });
});
