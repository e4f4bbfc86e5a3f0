import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCliArgs, normaliseControllerUrl, UsageError } from '../../../src/agent/cli/cli-args.js';
import { explainError, EXIT } from '../../../src/agent/cli/cli-errors.js';
import { ControllerError } from '../../../src/controller-client/controller-error.js';
import { MemoryCredentialStore } from '../../../src/agent/credentials/memory-credential-store.js';
import { ACCOUNTS, CredentialVault } from '../../../src/agent/session/credential-vault.js';
import { defaultConfigDir, SettingsFile } from '../../../src/agent/settings/agent-settings.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('SettingsFile', () => {
  it('keeps only non-secret known settings, written with owner-only permissions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'postern-settings-'));
    dirs.push(dir);
    const file = new SettingsFile(join(dir, 'nested'));
    await file.update({ controllerUrl: 'https://c:1280', username: 'alice', password: 'nope' } as never);
    expect(await file.load()).toEqual({ controllerUrl: 'https://c:1280', username: 'alice' });
    expect(readFileSync(file.path, 'utf8')).not.toContain('nope');
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    writeFileSync(file.path, '{not json');
    expect(await file.load()).toEqual({});
  });

  it('uses the per-OS config folder', () => {
    expect(defaultConfigDir('linux', { XDG_CONFIG_HOME: '/x' })).toBe('/x/postern');
    expect(defaultConfigDir('win32', { APPDATA: 'C:\\A' })).toContain('Postern');
  });
});

describe('CredentialVault', () => {
  it('stores the login and token under fixed accounts and never hands a token to another controller', async () => {
    const store = new MemoryCredentialStore();
    const vault = new CredentialVault(store);
    await vault.saveLogin({ controllerUrl: 'https://a', username: 'u', password: 'p' });
    await vault.saveToken('https://a', 'tok');
    expect(store.accounts()).toEqual([ACCOUNTS.login, ACCOUNTS.session].sort());
    expect(await vault.loadToken('https://a/')).toBe('tok');
    expect(await vault.loadToken('https://b')).toBeUndefined();
    expect(await vault.loadLogin('https://b')).toBeUndefined();
    expect(await vault.loadLogin()).toMatchObject({ username: 'u' });
    await store.set(ACCOUNTS.session, 'garbage');
    expect(await vault.loadToken('https://a')).toBeUndefined();
  });
});

describe('CLI arguments and errors', () => {
  it('reads options and environment', () => {
    const args = parseCliArgs(['--json', 'mfa', 'codes', '123456', '--regenerate'], {
      POSTERN_CONTROLLER_URL: 'http://c',
      POSTERN_CREDENTIAL_STORE: 'memory',
    });
    expect(args).toMatchObject({
      command: 'mfa',
      words: ['codes', '123456'],
      json: true,
      regenerate: true,
      controller: 'http://c',
      credentialStore: 'memory',
    });
    expect(() => parseCliArgs(['--credential-store', 'disk', 'status'], {})).toThrow(UsageError);
    expect(() => parseCliArgs(['--bogus'], {})).toThrow(UsageError);
    expect(normaliseControllerUrl('https://c:1280/')).toBe('https://c:1280');
    expect(() => normaliseControllerUrl('c:1280')).toThrow(UsageError);
  });

  it('maps failures to one line and an exit code', () => {
    const c = (code: string, status = 400) => new ControllerError({ status, code, message: code });
    expect(explainError(c('INVALID_AUTH', 401))).toEqual({
      message: 'wrong username or password',
      exitCode: EXIT.auth,
    });
    expect(explainError(c('MFA_INVALID_TOKEN')).exitCode).toBe(EXIT.mfa);
    expect(
      explainError(
        new ControllerError({ status: 0, code: 'UNREACHABLE', message: 'cannot reach the controller at x' }),
      ),
    ).toEqual({
      message: 'cannot reach the controller at x',
      exitCode: EXIT.unreachable,
    });
    expect(explainError(new UsageError('bad')).exitCode).toBe(EXIT.usage);
  });
});
