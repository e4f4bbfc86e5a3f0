/** Router enrollment tokens are pasted on a command line: none may look like an option or need quoting. */
import { describe, expect, it } from 'vitest';
import { newSecret } from '../../../controller/edge-routers/router-tokens.js';

describe('router enrollment tokens', () => {
  it('are 256 random bits as hex, never starting with a dash', () => {
    const tokens = Array.from({ length: 2000 }, newSecret);
    for (const token of tokens) expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
