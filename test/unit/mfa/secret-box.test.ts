import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MfaDataUnreadable, SecretBox } from '../../../controller/mfa/secret-box.js';
import { loadOrCreateKeyFile, parseMasterKey } from '../../../controller/platform/keys/master-key.js';
import { tempDir } from '../../helpers/controller.js';

describe('SecretBox', () => {
  const key = randomBytes(32);
  const box = new SecretBox(() => key);
  const secret = randomBytes(20);

  it('round-trips, with a fresh IV each time so equal secrets do not look equal', () => {
    const a = box.seal(secret, 'identity-1', 'totp-secret');
    const b = box.seal(secret, 'identity-1', 'totp-secret');
    expect(a.equals(b)).toBe(false);
    expect(a.includes(secret)).toBe(false);
    expect(box.open(a, 'identity-1', 'totp-secret')).toEqual(secret);
    expect(box.openText(box.sealText('ABCD2345WXYZ', 'i', 'recovery-code'), 'i', 'recovery-code')).toBe(
      'ABCD2345WXYZ',
    );
  });

  it('will not open for another identity or purpose (the associated data binds both)', () => {
    const sealed = box.seal(secret, 'identity-1', 'totp-secret');
    expect(() => box.open(sealed, 'identity-2', 'totp-secret')).toThrow(MfaDataUnreadable);
    expect(() => box.open(sealed, 'identity-1', 'recovery-code')).toThrow(MfaDataUnreadable);
  });

  it('will not open tampered data or data sealed under another master key', () => {
    const sealed = box.seal(secret, 'identity-1', 'totp-secret');
    for (const index of [0, 5, 20, sealed.length - 1]) {
      const tampered = Buffer.from(sealed);
      tampered[index]! ^= 1;
      expect(() => box.open(tampered, 'identity-1', 'totp-secret'), `byte ${index}`).toThrow(
        MfaDataUnreadable,
      );
    }
    expect(() => box.open(sealed.subarray(0, 10), 'identity-1', 'totp-secret')).toThrow(MfaDataUnreadable);
    expect(() => new SecretBox(() => randomBytes(32)).open(sealed, 'identity-1', 'totp-secret')).toThrow(
      MfaDataUnreadable,
    );
  });

  it('asks for the master key only when first used', () => {
    let asked = 0;
    const lazy = new SecretBox(() => (asked++, key));
    expect(asked).toBe(0);
    lazy.open(lazy.seal(secret, 'i', 'totp-secret'), 'i', 'totp-secret');
    expect(asked).toBe(1);
  });
});

describe('master key', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = tempDir('postern-key-');
    dirs.push(d);
    return d;
  };
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('is created on first use as 32 random bytes with mode 0600, then reused', () => {
    const d = dir();
    const first = loadOrCreateKeyFile(d);
    expect(first).toHaveLength(32);
    expect(statSync(join(d, 'master.key')).mode & 0o777).toBe(0o600);
    expect(loadOrCreateKeyFile(d)).toEqual(first);
    expect(readdirSync(d)).toEqual(['master.key']);
    expect(loadOrCreateKeyFile(dir()).equals(first)).toBe(false);
  });

  it('warns when the file is readable by others, and refuses one of the wrong size', () => {
    const d = dir();
    const path = join(d, 'master.key');
    writeFileSync(path, randomBytes(32));
    chmodSync(path, 0o644);
    const warnings: string[] = [];
    loadOrCreateKeyFile(d, (m) => warnings.push(m));
    expect(warnings.join()).toMatch(/readable by other users/);
    writeFileSync(path, randomBytes(16));
    expect(() => loadOrCreateKeyFile(d)).toThrow(/exactly 32 bytes/);
    expect(readFileSync(path)).toHaveLength(16);
    expect(existsSync(path)).toBe(true);
  });

  it('from the environment: 64 hex digits or base64 of 32 bytes, nothing else', () => {
    const key = randomBytes(32);
    expect(parseMasterKey(key.toString('hex'))).toEqual(key);
    expect(parseMasterKey(key.toString('hex').toUpperCase())).toEqual(key);
    expect(parseMasterKey(key.toString('base64'))).toEqual(key);
    expect(parseMasterKey(` ${key.toString('base64url')}\n`)).toEqual(key);
    for (const bad of [
      '',
      'short',
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      `${key.toString('hex')}!`,
    ]) {
      expect(() => parseMasterKey(bad), bad).toThrow(/POSTERN_MASTER_KEY must be 32 bytes/);
    }
  });
});
