/**
 * The Windows and macOS fact collectors on recorded outputs of the real tools (test/fixtures/posture-tools),
 * run through the FactCollector as the agent runs them: several OS releases, a missing tool, an unexpected
 * output. A fact that cannot be read is unknown with the reason, never passing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandResult, CommandRunner } from '../../../../src/agent/collectors/command-runner.js';
import { FactCollector } from '../../../../src/agent/collectors/facts/fact-collector.js';
import type { FactTypeId } from '../../../../src/agent/collectors/facts/fact-registry.js';
import { parseSysadminctlScreenLock } from '../../../../src/agent/collectors/facts/screen-lock/macos.js';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'posture-tools');
const recorded = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const ok = (stdout: string): CommandResult => ({ stdout, stderr: '', code: 0 });

type Answers = Record<string, CommandResult | 'missing'>;

/** Answers a command by `file args...` (PowerShell by the cmdlet its script calls); records the calls. */
function runner(answers: Answers): { run: CommandRunner; calls: string[] } {
  const calls: string[] = [];
  const run: CommandRunner = async (file, args) => {
    const encoded = args[args.indexOf('-EncodedCommand') + 1];
    const script = args.includes('-EncodedCommand')
      ? Buffer.from(encoded!, 'base64').toString('utf16le')
      : '';
    const key = Object.keys(answers).find((k) => script.includes(k)) ?? [file, ...args].join(' ');
    calls.push(key);
    const answer = answers[key];
    if (answer === 'missing' || answer === undefined) {
      const error = Object.assign(new Error(`spawn ${file} ENOENT`), { code: 'ENOENT' });
      throw error;
    }
    return answer;
  };
  return { run, calls };
}

async function fact(platform: NodeJS.Platform, typeId: FactTypeId, answers: Answers) {
  const { run } = runner(answers);
  const collector = new FactCollector({ platform, environment: { run, powershell: 'powershell.exe' } });
  const { id: _id, typeId: _type, ...rest } = await collector.collect(typeId, 'check-1');
  return rest;
}

describe('Windows: BitLocker', () => {
  const bitlocker = (file: string) =>
    fact('win32', 'DISK_ENCRYPTION', { 'Get-BitLockerVolume': ok(recorded(`windows/${file}`)) });

  it('reads Get-BitLockerVolume as administrator (Windows 11 23H2, Windows 10 22H2)', async () => {
    expect(await bitlocker('bitlocker-admin-all-on-win11-23h2.json')).toEqual({
      encrypted: true,
      allVolumesEncrypted: true,
    });
    expect(await bitlocker('bitlocker-admin-data-off-win10-22h2.json')).toEqual({
      encrypted: true,
      allVolumesEncrypted: false,
    });
  });

  it("falls back to the Shell's BitLocker property as a user; suspended protection is not encrypted", async () => {
    expect(await bitlocker('bitlocker-user-shell-on-win11-24h2.json')).toEqual({
      encrypted: true,
      allVolumesEncrypted: true,
    });
    expect(await bitlocker('bitlocker-user-shell-suspended-win10-21h2.json')).toEqual({
      encrypted: false,
      allVolumesEncrypted: false,
    });
  });

  it('is unknown, saying why, where neither answers (Server 2019 without the BitLocker feature; a user whose Shell is silent)', async () => {
    expect(await bitlocker('bitlocker-server-2019-no-feature.json')).toEqual({
      encrypted: null,
      unknownReason: expect.stringMatching(/BitLocker is not installed/),
    });
    expect(await bitlocker('bitlocker-user-shell-silent-win10-1809.json')).toEqual({
      encrypted: null,
      unknownReason: expect.stringMatching(/needs the Postern service/),
    });
  });
});

describe('Windows: firewall profiles', () => {
  const firewall = (file: string) =>
    fact('win32', 'FIREWALL', { 'Get-NetFirewallProfile': ok(recorded(`windows/${file}`)) });

  it('is enabled only when every profile is (Windows 11, Windows 10 with Public off, Server 2022 all off)', async () => {
    expect(await firewall('firewall-all-on-win11.json')).toEqual({ enabled: true });
    expect(await firewall('firewall-public-off-win10.json')).toEqual({ enabled: false });
    expect(await firewall('firewall-all-off-server-2022.json')).toEqual({ enabled: false });
  });

  it('an unexpected output or a failing PowerShell is unknown with the reason', async () => {
    expect(await firewall('unexpected-error-text.txt')).toEqual({
      enabled: null,
      unknownReason: expect.stringMatching(/unexpected firewall profile output/),
    });
    const failed = await fact('win32', 'FIREWALL', {
      'Get-NetFirewallProfile': {
        stdout: '',
        stderr: recorded('windows/unexpected-error-text.txt'),
        code: 1,
      },
    });
    expect(failed).toEqual({
      enabled: null,
      unknownReason: expect.stringMatching(/exit 1\): Get-NetFirewallProfile : Invalid class/),
    });
  });

  it('a missing PowerShell is unknown with the reason', async () => {
    expect(await fact('win32', 'FIREWALL', { 'Get-NetFirewallProfile': 'missing' })).toEqual({
      enabled: null,
      unknownReason: expect.stringMatching(/ENOENT/),
    });
  });
});

describe('Windows: screen lock', () => {
  const lock = (file: string) =>
    fact('win32', 'SCREEN_LOCK', { ScreenSaverIsSecure: ok(recorded(`windows/${file}`)) });

  it("the user's password-protected screen saver (Windows 10)", async () => {
    expect(await lock('screenlock-user-saver-10min-win10.json')).toEqual({
      lockEnabled: true,
      idleMinutes: 10,
    });
  });

  it("policy wins over the user's values, and the machine inactivity limit locks earlier (Windows 11)", async () => {
    expect(await lock('screenlock-policy-and-inactivity-win11.json')).toEqual({
      lockEnabled: true,
      idleMinutes: 5,
    });
  });

  it('a screen saver without a password, or none chosen, does not lock', async () => {
    expect(await lock('screenlock-saver-no-password-win11.json')).toEqual({
      lockEnabled: false,
      idleMinutes: null,
    });
    expect(await lock('screenlock-default-none-win11.json')).toEqual({
      lockEnabled: false,
      idleMinutes: null,
    });
  });

  it("as the system service (LocalSystem) it is unknown: SYSTEM's settings are no user's screen", async () => {
    expect(await lock('screenlock-as-system-service-win11.json')).toEqual({
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: expect.stringMatching(/not by the system service/),
    });
  });

  it('an unexpected output is unknown', async () => {
    expect(await lock('unexpected-error-text.txt')).toMatchObject({ lockEnabled: null, idleMinutes: null });
  });
});

describe('macOS: FileVault', () => {
  const filevault = (file: string) =>
    fact('darwin', 'DISK_ENCRYPTION', { '/usr/bin/fdesetup status': ok(recorded(`macos/${file}`)) });

  it('on is encrypted (14); off (15), still encrypting (13) or deferred (12) is not', async () => {
    expect(await filevault('fdesetup-status-on-14.txt')).toEqual({
      encrypted: true,
      allVolumesEncrypted: true,
    });
    expect(await filevault('fdesetup-status-off-15.txt')).toEqual({
      encrypted: false,
      allVolumesEncrypted: false,
    });
    expect(await filevault('fdesetup-status-encrypting-13.txt')).toEqual({
      encrypted: false,
      allVolumesEncrypted: false,
    });
    expect(await filevault('fdesetup-status-deferred-12.txt')).toEqual({
      encrypted: false,
      allVolumesEncrypted: false,
    });
  });

  it('an unexpected output and a missing tool are unknown with the reason', async () => {
    expect(await filevault('fdesetup-status-unexpected.txt')).toEqual({
      encrypted: null,
      unknownReason: expect.stringMatching(/unexpected fdesetup output: Error: Unable to communicate/),
    });
    expect(await fact('darwin', 'DISK_ENCRYPTION', { '/usr/bin/fdesetup status': 'missing' })).toEqual({
      encrypted: null,
      unknownReason: expect.stringMatching(/ENOENT/),
    });
  });
});

describe('macOS: application firewall', () => {
  const state = (file: string) =>
    fact('darwin', 'FIREWALL', {
      '/usr/libexec/ApplicationFirewall/socketfilterfw --getglobalstate': ok(recorded(`macos/${file}`)),
    });

  it('State 1 and 2 are on, State 0 off; the sentence alone (10.14) is read too', async () => {
    expect(await state('socketfilterfw-enabled-14.txt')).toEqual({ enabled: true });
    expect(await state('socketfilterfw-block-all-13.txt')).toEqual({ enabled: true });
    expect(await state('socketfilterfw-disabled-15.txt')).toEqual({ enabled: false });
    expect(await state('socketfilterfw-enabled-10.14.txt')).toEqual({ enabled: true });
  });

  it('an unexpected output is unknown', async () => {
    expect(await state('fdesetup-status-unexpected.txt')).toMatchObject({ enabled: null });
  });
});

describe('macOS: screen lock', () => {
  const PMSET = '/usr/bin/pmset -g';
  const SYSADMINCTL = '/usr/sbin/sysadminctl -screenLock status';
  const IDLE = '/usr/bin/defaults -currentHost read com.apple.screensaver idleTime';
  const onStderr = (file: string): CommandResult => ({
    stdout: '',
    stderr: recorded(`macos/${file}`),
    code: 0,
  });

  it('the display sleep (10 min) comes before the screen saver (20 min), plus the lock delay (14)', async () => {
    expect(
      await fact('darwin', 'SCREEN_LOCK', {
        [SYSADMINCTL]: onStderr('sysadminctl-screenlock-300-14.txt'),
        [IDLE]: ok('1200\n'),
        [PMSET]: ok(recorded('macos/pmset-g-14.txt')),
      }),
    ).toEqual({ lockEnabled: true, idleMinutes: 15 });
  });

  it('an immediate lock after a 5-minute screen saver (15); the default 20 minutes when never set', async () => {
    expect(
      await fact('darwin', 'SCREEN_LOCK', {
        [SYSADMINCTL]: onStderr('sysadminctl-screenlock-immediate-15.txt'),
        [IDLE]: ok('300\n'),
        [PMSET]: ok(' displaysleep         0\n'),
      }),
    ).toEqual({ lockEnabled: true, idleMinutes: 5 });
    expect(
      await fact('darwin', 'SCREEN_LOCK', {
        [SYSADMINCTL]: onStderr('sysadminctl-screenlock-immediate-15.txt'),
        [IDLE]: {
          stdout: '',
          stderr: 'The domain/default pair of (com.apple.screensaver, idleTime) does not exist',
          code: 1,
        },
        [PMSET]: ok(' displaysleep         0\n'),
      }),
    ).toEqual({ lockEnabled: true, idleMinutes: 20 });
  });

  it('screenLock off (13) does not lock', async () => {
    expect(
      await fact('darwin', 'SCREEN_LOCK', {
        [SYSADMINCTL]: onStderr('sysadminctl-screenlock-off-13.txt'),
        [IDLE]: ok('300\n'),
        [PMSET]: ok(recorded('macos/pmset-g-14.txt')),
      }),
    ).toEqual({ lockEnabled: false, idleMinutes: null });
  });

  it('before macOS 13 (no -screenLock) reads askForPassword and its delay', async () => {
    const old = {
      [SYSADMINCTL]: { stdout: '', stderr: recorded('macos/sysadminctl-usage-12.txt'), code: 0 },
      [IDLE]: ok('600\n'),
      [PMSET]: ok(recorded('macos/pmset-g-14.txt')),
      '/usr/bin/defaults read com.apple.screensaver askForPasswordDelay': ok('60\n'),
    };
    expect(
      await fact('darwin', 'SCREEN_LOCK', {
        ...old,
        '/usr/bin/defaults read com.apple.screensaver askForPassword': ok('1\n'),
      }),
    ).toEqual({ lockEnabled: true, idleMinutes: 11 });
    expect(
      await fact('darwin', 'SCREEN_LOCK', {
        ...old,
        '/usr/bin/defaults read com.apple.screensaver askForPassword': ok('0\n'),
      }),
    ).toEqual({ lockEnabled: false, idleMinutes: null });
  });

  it('no readable lock setting at all is unknown', async () => {
    expect(await fact('darwin', 'SCREEN_LOCK', { [SYSADMINCTL]: 'missing' })).toEqual({
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: expect.stringMatching(/could not be read/),
    });
    expect(parseSysadminctlScreenLock('something else')).toBeUndefined();
  });
});
