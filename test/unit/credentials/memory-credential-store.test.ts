import { describe, expect, it } from 'vitest';
import { MemoryCredentialStore } from '../../../src/agent/credentials/memory-credential-store.js';

describe('MemoryCredentialStore', () => {
  it('gets what was set, overwrites, and deletes', async () => {
    const store = new MemoryCredentialStore({ seeded: 's0' });
    expect(await store.get('seeded')).toBe('s0');
    expect(await store.get('token')).toBeUndefined();
    await store.set('token', 'one');
    await store.set('token', 'two');
    expect(await store.get('token')).toBe('two');
    expect(store.accounts()).toEqual(['seeded', 'token']);
    expect(await store.delete('token')).toBe(true);
    expect(await store.delete('token')).toBe(false);
    expect(await store.get('token')).toBeUndefined();
  });

  it('keeps an empty secret distinct from no secret', async () => {
    const store = new MemoryCredentialStore();
    await store.set('empty', '');
    expect(await store.get('empty')).toBe('');
  });

  it('refuses an empty account name', async () => {
    const store = new MemoryCredentialStore();
    await expect(store.set('', 'x')).rejects.toThrow(TypeError);
    await expect(store.get('')).rejects.toThrow(/non-empty/);
  });
});
