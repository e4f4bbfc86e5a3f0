/** The file store for machines without a keychain, and the keychain's fallback to it. */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CredentialStoreError,
  type CredentialStore,
} from '../../../src/agent/credentials/credential-store.js';
import { FileCredentialStore, KeychainOrFile } from '../../../src/agent/credentials/file-credential-store.js';
import { MemoryCredentialStore } from '../../../src/agent/credentials/memory-credential-store.js';
import { tempDir } from '../../helpers/controller.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const fileIn = () => {
  const dir = tempDir('postern-file-store-');
  dirs.push(dir);
  return join(dir, 'nested', 'credentials.json');
};

describe('FileCredentialStore', () => {
  it('keeps the accounts it is given in a 0600 file, and nothing else', async () => {
    const path = fileIn();
    const store = new FileCredentialStore(path, ['agent-session']);
    await store.set('agent-session', '{"token":"t"}');
    await store.set('agent-login', '{"password":"hunter22"}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).not.toContain('hunter22');
    // a new process reads what the last one kept
    const again = new FileCredentialStore(path, ['agent-session']);
    expect(await again.get('agent-session')).toBe('{"token":"t"}');
    expect(await again.get('agent-login')).toBeUndefined();
    expect(await again.delete('agent-session')).toBe(true);
    expect(await again.delete('agent-session')).toBe(false);
    expect(await again.get('agent-session')).toBeUndefined();
  });
});

describe('KeychainOrFile', () => {
  const broken: CredentialStore = {
    get: () => Promise.reject(new CredentialStoreError('get', 'agent-session', 'no Secret Service')),
    set: () => Promise.reject(new CredentialStoreError('set', 'agent-session', 'no Secret Service')),
    delete: () => Promise.reject(new CredentialStoreError('delete', 'agent-session', 'no Secret Service')),
  };

  it('uses the keychain while it works', async () => {
    const keychain = new MemoryCredentialStore();
    const store = new KeychainOrFile(
      keychain,
      new FileCredentialStore(fileIn(), ['agent-session']),
      () => {},
    );
    await store.set('agent-session', 'x');
    expect(await keychain.get('agent-session')).toBe('x');
  });

  it('falls back to the file on the first keychain failure, warning once', async () => {
    const warnings: string[] = [];
    const file = new FileCredentialStore(fileIn(), ['agent-session']);
    const store = new KeychainOrFile(broken, file, (w) => warnings.push(w));
    expect(await store.get('agent-session')).toBeUndefined();
    await store.set('agent-session', 'y');
    expect(await file.get('agent-session')).toBe('y');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('mode 0600');
  });

  // Without a D-Bus session the keychain's first read answers "nothing" and only later calls fail: a new
  // process must still find what an earlier one kept in the file, and a sign-out must clear it there.
  it('finds in the file what an earlier process kept there when the keychain first answers nothing', async () => {
    const path = fileIn();
    await new KeychainOrFile(broken, new FileCredentialStore(path, ['agent-session']), () => {}).set(
      'agent-session',
      'kept',
    );
    let calls = 0;
    const flaky: CredentialStore = {
      get: () =>
        calls++ === 0
          ? Promise.resolve(undefined)
          : Promise.reject(new CredentialStoreError('get', 'agent-session', 'AccessDenied')),
      set: broken.set,
      delete: () => Promise.resolve(false),
    };
    const next = new KeychainOrFile(flaky, new FileCredentialStore(path, ['agent-session']), () => {});
    expect(await next.get('agent-session')).toBe('kept');
    expect(await next.delete('agent-session')).toBe(true);
    const after = new KeychainOrFile(flaky, new FileCredentialStore(path, ['agent-session']), () => {});
    expect(await after.get('agent-session')).toBeUndefined();
  });
});
