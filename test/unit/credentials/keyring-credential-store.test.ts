import { describe, expect, it } from 'vitest';
import { CredentialStoreError } from '../../../src/agent/credentials/credential-store.js';
import {
  KEYRING_SERVICE,
  KeyringCredentialStore,
  type KeyringEntry,
} from '../../../src/agent/credentials/keyring-credential-store.js';

/** A fake keychain keyed by service and account, recording which entries were opened. */
function fakeKeychain() {
  const items = new Map<string, string>();
  const opened: Array<[string, string]> = [];
  const entryFactory = (service: string, account: string): KeyringEntry => {
    opened.push([service, account]);
    const key = `${service}/${account}`;
    return {
      getPassword: async () => items.get(key) ?? null,
      setPassword: async (password) => void items.set(key, password),
      deleteCredential: async () => items.delete(key),
    };
  };
  return { items, opened, entryFactory };
}

describe('KeyringCredentialStore (fake keychain)', () => {
  it('stores under the postern service and maps a missing secret to undefined', async () => {
    const keychain = fakeKeychain();
    const store = new KeyringCredentialStore({ entryFactory: keychain.entryFactory });
    expect(await store.get('alice')).toBeUndefined();
    await store.set('alice', 'pw');
    expect(keychain.items.get('postern/alice')).toBe('pw');
    expect(await store.delete('alice')).toBe(true);
    expect(await store.delete('alice')).toBe(false);
    expect(KEYRING_SERVICE).toBe('postern');
    expect(new Set(keychain.opened.map(([service]) => service))).toEqual(new Set(['postern']));
  });

  it('wraps platform failures without the secret, even if the platform echoed it', async () => {
    const secret = 'hunter2-very-secret';
    const store = new KeyringCredentialStore({
      entryFactory: () => ({
        getPassword: async () => {
          throw new Error('Secret Service: no result found');
        },
        setPassword: async (password) => {
          throw new Error(`Platform failure: could not store ${password}`);
        },
        deleteCredential: async () => false,
      }),
    });
    const failure = await store.set('bob', secret).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CredentialStoreError);
    expect((failure as CredentialStoreError).operation).toBe('set');
    expect(String((failure as Error).message)).toBe(
      "credential store set failed for account 'bob': Platform failure: could not store [redacted]",
    );
    expect(JSON.stringify(failure) + String((failure as Error).stack)).not.toContain(secret);
    await expect(store.get('bob')).rejects.toThrow(
      /get failed for account 'bob': Secret Service: no result found/,
    );
  });

  it('turns an entry that cannot be created into a store error', async () => {
    const store = new KeyringCredentialStore({
      entryFactory: () => {
        throw new Error('DBus error: no session bus');
      },
    });
    await expect(store.delete('carol')).rejects.toThrow(CredentialStoreError);
  });
});
