/**
 * The Linux firewall and screen lock collectors' decisions that the real-tool tests (linux-facts.real) cannot
 * set up on a test machine: ufw and firewalld running, iptables rules, KDE's settings file, no desktop at all.
 * Files are real (a temporary /etc and XDG_CONFIG_HOME); the commands are recorded answers.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CommandResult, CommandRunner } from '../../../../src/agent/collectors/command-runner.js';
import { factEnvironment } from '../../../../src/agent/collectors/facts/fact-environment.js';
import {
  collectLinuxFirewall,
  iptablesDrops,
} from '../../../../src/agent/collectors/facts/firewall/linux.js';
import { collectLinuxScreenLock } from '../../../../src/agent/collectors/facts/screen-lock/linux.js';
import { systemTool } from '../../../../src/agent/collectors/facts/system-tool.js';

const dir = mkdtempSync(join(tmpdir(), 'postern-linux-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ok = (stdout: string, code = 0): CommandResult => ({ stdout, stderr: '', code });
const DENIED: CommandResult = {
  stdout: '',
  stderr: 'netlink: Error: cache initialization failed: Operation not permitted\n',
  code: 1,
};

function runner(answers: Record<string, CommandResult>): CommandRunner {
  return async (file) => {
    const answer = answers[basename(file)];
    if (!answer) throw Object.assign(new Error(`spawn ${file} ENOENT`), { code: 'ENOENT' });
    return answer;
  };
}

function etcWithUfw(enabled: 'yes' | 'no'): string {
  const etc = join(dir, `etc-${enabled}`);
  mkdirSync(join(etc, 'ufw'), { recursive: true });
  writeFileSync(join(etc, 'ufw', 'ufw.conf'), `# /etc/ufw/ufw.conf\nENABLED=${enabled}\nLOGLEVEL=low\n`);
  return etc;
}

describe('FIREWALL on Linux without root', () => {
  const firewall = (answers: Record<string, CommandResult>, etcRoot = join(dir, 'no-etc')) =>
    collectLinuxFirewall(factEnvironment({ run: runner(answers), etcRoot }));

  it('firewalld running is on, whatever the rule sets say', async () => {
    expect(await firewall({ systemctl: ok('active\ninactive\n'), nft: DENIED })).toEqual({ enabled: true });
  });

  it('ufw counts when its unit is active and its configuration enables it', async () => {
    const active = ok('inactive\nactive\n', 3);
    expect(await firewall({ systemctl: active, nft: DENIED }, etcWithUfw('yes'))).toEqual({ enabled: true });
    // ufw's unit is active at boot even when ufw is disabled: the configuration decides.
    expect(await firewall({ systemctl: active, nft: DENIED }, etcWithUfw('no'))).toMatchObject({
      enabled: null,
    });
  });

  it('unreadable rule sets and no firewall service: unknown, saying root is needed', async () => {
    expect(await firewall({ systemctl: ok('inactive\ninactive\n', 3), nft: DENIED })).toEqual({
      enabled: null,
      unknownReason: expect.stringMatching(/needs root .*Operation not permitted/),
    });
  });

  it('no firewall tool installed at all is off, not unknown', async () => {
    expect(await firewall({ systemctl: ok('inactive\ninactive\n', 3) })).toEqual({ enabled: false });
  });

  it('iptables: a DROP policy, or a final unconditional DROP/REJECT, before any unconditional ACCEPT', () => {
    expect(iptablesDrops('-P INPUT DROP\n-A INPUT -i lo -j ACCEPT\n')).toBe(true);
    expect(
      iptablesDrops(
        '-P INPUT ACCEPT\n-A INPUT -p tcp --dport 22 -j ACCEPT\n-A INPUT -j REJECT --reject-with icmp-port-unreachable\n',
      ),
    ).toBe(true);
    expect(iptablesDrops('-P INPUT DROP\n-A INPUT -j ACCEPT\n')).toBe(false);
    expect(iptablesDrops('-P INPUT ACCEPT\n-A INPUT -p tcp --dport 23 -j DROP\n')).toBe(false);
  });
});

describe('SCREEN_LOCK on Linux: KDE and no desktop', () => {
  const noGsettings = runner({});

  function kdeConfig(name: string, text: string | undefined): string {
    const config = join(dir, name);
    mkdirSync(config, { recursive: true });
    if (text !== undefined) writeFileSync(join(config, 'kscreenlockerrc'), text);
    return config;
  }

  const kde = (config: string) =>
    collectLinuxScreenLock(
      factEnvironment({
        run: noGsettings,
        uid: 1000,
        env: { XDG_CURRENT_DESKTOP: 'KDE', XDG_CONFIG_HOME: config },
      }),
    );

  it('reads Autolock and Timeout (minutes) plus LockGrace (seconds) from the [Daemon] group', async () => {
    const config = kdeConfig('kde-10', '[Greeter]\nTimeout=99\n\n[Daemon]\nTimeout=10\nLockGrace=120\n');
    expect(await kde(config)).toEqual({ lockEnabled: true, idleMinutes: 12 });
  });

  it("KDE's defaults (on, after 5 minutes) when the file or the keys are absent", async () => {
    expect(await kde(kdeConfig('kde-none', undefined))).toEqual({ lockEnabled: true, idleMinutes: 5 });
    expect(await kde(kdeConfig('kde-empty', '[Daemon]\n'))).toEqual({ lockEnabled: true, idleMinutes: 5 });
  });

  it('Autolock=false does not lock', async () => {
    expect(await kde(kdeConfig('kde-off', '[Daemon]\nAutolock=false\nTimeout=5\n'))).toEqual({
      lockEnabled: false,
      idleMinutes: null,
    });
  });

  it('no GNOME settings and no KDE file: unknown, naming the desktop', async () => {
    const fact = await collectLinuxScreenLock(
      factEnvironment({
        run: noGsettings,
        uid: 1000,
        home: join(dir, 'nobody'),
        env: { XDG_CURRENT_DESKTOP: 'sway' },
      }),
    );
    expect(fact).toEqual({
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: 'no GNOME or KDE screen lock settings found (desktop: sway)',
    });
  });
});

describe('SCREEN_LOCK on Linux as root', () => {
  it("is unknown: root's settings (or GNOME's defaults) are no user's screen", async () => {
    const gnomeDefaults = runner({ gsettings: ok('true\n') });
    const fact = await collectLinuxScreenLock(factEnvironment({ run: gnomeDefaults, uid: 0 }));
    expect(fact).toEqual({
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: expect.stringMatching(/signed-in user's Postern, not by the system service/),
    });
  });
});

describe('systemTool', () => {
  it("finds a tool in the system's folders whatever PATH says, and names a path that fails when it is absent", () => {
    expect(systemTool('nft', (path) => path === '/usr/sbin/nft')).toBe('/usr/sbin/nft');
    expect(systemTool('gsettings', (path) => path === '/usr/bin/gsettings')).toBe('/usr/bin/gsettings');
    expect(systemTool('iptables', () => false)).toBe('/usr/sbin/iptables');
  });
});
