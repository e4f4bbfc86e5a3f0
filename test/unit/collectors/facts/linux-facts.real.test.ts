/**
 * The Linux fact collectors against this machine's kernel, for real: volumes mounted from loop devices (one
 * of them LUKS through cryptsetup when the kernel has device-mapper), an nftables ruleset inside a network
 * namespace, and GNOME's screen lock settings through gsettings in a private D-Bus session.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandResult, CommandRunner } from '../../../../src/agent/collectors/command-runner.js';
import { collectLinuxDiskEncryption } from '../../../../src/agent/collectors/facts/disk-encryption/linux.js';
import { factEnvironment } from '../../../../src/agent/collectors/facts/fact-environment.js';
import {
  collectLinuxFirewall,
  nftablesVerdict,
} from '../../../../src/agent/collectors/facts/firewall/linux.js';
import { collectLinuxScreenLock } from '../../../../src/agent/collectors/facts/screen-lock/linux.js';
import {
  createNamespace,
  namespaceUnavailable,
  type NetworkNamespace,
} from '../../../helpers/network-namespace.js';

const isRoot = process.getuid?.() === 0;
const has = (command: string, args = ['--version']) => !spawnSync(command, args).error;

function loopUnavailable(): string {
  if (process.platform !== 'linux') return 'loop devices are Linux only';
  if (!isRoot) return 'not running as root (losetup and mount need it)';
  if (!has('losetup')) return 'losetup (util-linux) is not installed';
  if (!existsSync('/dev/loop-control')) return 'this kernel has no loop devices';
  return '';
}

function luksUnavailable(): string {
  const loop = loopUnavailable();
  if (loop) return loop;
  if (!has('cryptsetup')) return 'cryptsetup is not installed (apt-get install cryptsetup-bin)';
  // cryptsetup opens a volume through device-mapper; some kernels (microVMs) are built without it.
  if (!readFileSync('/proc/devices', 'utf8').includes('device-mapper'))
    return 'this kernel has no device-mapper (dm_mod, dm_crypt)';
  return '';
}

function sh(file: string, args: readonly string[]): void {
  const result = spawnSync(file, args, { encoding: 'utf8' });
  if (result.error || result.status !== 0)
    throw new Error(`${file} ${args.join(' ')}: ${result.error?.message ?? result.stderr}`);
}

function output(file: string, args: readonly string[]): string {
  return spawnSync(file, args, { encoding: 'utf8' }).stdout.trim();
}

const loopWhy = loopUnavailable();
const luksWhy = luksUnavailable();

describe('DISK_ENCRYPTION on Linux, real loop devices', () => {
  const dir = mkdtempSync(join(tmpdir(), 'postern-disk-'));
  const teardown: (() => void)[] = [];
  const plainMount = join(dir, 'plain');
  const cryptMount = join(dir, 'crypt');
  const mapper = `postern-t-${process.pid}`;

  beforeAll(() => {
    if (loopWhy) return;
    // A plain ext4 image mounted through a loop device.
    const plainImage = join(dir, 'plain.img');
    writeFileSync(plainImage, Buffer.alloc(0));
    sh('truncate', ['-s', '16M', plainImage]);
    sh('mkfs.ext4', ['-q', '-F', plainImage]);
    mkdirSync(plainMount);
    sh('mount', ['-o', 'loop', plainImage, plainMount]);
    teardown.push(() => spawnSync('umount', [plainMount]));
    if (luksWhy) return;
    // A LUKS2 volume on a loop device, opened with a key file (a weak KDF: the test is not about the key).
    const cryptImage = join(dir, 'crypt.img');
    const key = join(dir, 'key');
    writeFileSync(key, 'postern-test-key-not-secret');
    sh('truncate', ['-s', '48M', cryptImage]);
    const loop = output('losetup', ['--find', '--show', cryptImage]);
    teardown.push(() => spawnSync('losetup', ['-d', loop]));
    sh('cryptsetup', [
      'luksFormat',
      '--batch-mode',
      '--type',
      'luks2',
      '--pbkdf',
      'pbkdf2',
      '--pbkdf-force-iterations',
      '1000',
      '--key-file',
      key,
      loop,
    ]);
    sh('cryptsetup', ['open', '--key-file', key, loop, mapper]);
    teardown.push(() => spawnSync('cryptsetup', ['close', mapper]));
    sh('mkfs.ext4', ['-q', `/dev/mapper/${mapper}`]);
    mkdirSync(cryptMount);
    sh('mount', [`/dev/mapper/${mapper}`, cryptMount]);
    teardown.push(() => spawnSync('umount', [cryptMount]));
  }, 60_000);

  afterAll(() => {
    for (const step of teardown.reverse()) step();
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(loopWhy !== '')(
    `says not encrypted for a plain volume on a loop device${loopWhy ? ` (skipped: ${loopWhy})` : ''}`,
    async () => {
      const fact = await collectLinuxDiskEncryption(factEnvironment({ rootMount: plainMount }));
      expect(fact).toMatchObject({ encrypted: false, allVolumesEncrypted: false });
    },
  );

  it.skipIf(luksWhy !== '')(
    `says encrypted for a LUKS volume on a loop device${luksWhy ? ` (skipped: ${luksWhy})` : ''}`,
    async () => {
      const fact = await collectLinuxDiskEncryption(factEnvironment({ rootMount: cryptMount }));
      expect(fact.encrypted).toBe(true);
      // The plain volume is mounted too: not every fixed volume is encrypted.
      expect(fact.allVolumesEncrypted).toBe(false);
    },
  );

  it.skipIf(process.platform !== 'linux')(
    'says unknown, with the reason, when nothing is mounted there',
    async () => {
      const fact = await collectLinuxDiskEncryption(factEnvironment({ rootMount: join(dir, 'nowhere') }));
      expect(fact).toEqual({ encrypted: null, unknownReason: expect.stringContaining('nothing is mounted') });
    },
  );
});

const namespaceWhy = process.platform === 'linux' ? namespaceUnavailable() : 'Linux only';

describe.skipIf(namespaceWhy !== '')(
  `FIREWALL on Linux, a real nftables ruleset in a network namespace${namespaceWhy ? ` (skipped: ${namespaceWhy})` : ''}`,
  () => {
    let ns: NetworkNamespace;
    // As the real runner does, a command that is not installed rejects (ip netns exec says so on stderr).
    const inNamespace: CommandRunner = async (file, args) => {
      const result = await ns.exec(file, args);
      if (/exec of .* failed: No such file/.test(result.stderr)) throw new Error(`${file}: ENOENT`);
      return result;
    };
    const load = async (ruleset: string) => {
      const flushed = await ns.exec('nft', ['flush', 'ruleset']);
      expect(flushed.code).toBe(0);
      const file = join(tmpdir(), `postern-nft-${process.pid}.nft`);
      writeFileSync(file, ruleset);
      const loaded = await ns.exec('nft', ['-f', file]);
      rmSync(file, { force: true });
      expect(loaded.stderr).toBe('');
    };

    beforeAll(async () => {
      ns = await createNamespace('nameserver 127.0.0.1\n');
    });
    afterAll(() => ns?.remove());

    it('an input chain with policy drop is a firewall; policy accept is not', async () => {
      await load(`table inet filter {
  chain input { type filter hook input priority 0; policy drop; ct state established,related accept; iif lo accept; tcp dport 22 accept; }
}`);
      expect(await nftablesVerdict(inNamespace)).toEqual({ readable: true, drops: true });
      await load(`table inet filter {
  chain input { type filter hook input priority 0; policy accept; tcp dport 23 drop; }
}`);
      expect(await nftablesVerdict(inNamespace)).toEqual({ readable: true, drops: false });
    });

    it('a final unconditional reject counts; an unconditional accept before it does not', async () => {
      await load(`table ip filter {
  chain INPUT { type filter hook input priority 0; policy accept; iif lo accept; counter reject; }
}`);
      expect(await nftablesVerdict(inNamespace)).toEqual({ readable: true, drops: true });
      await load(`table ip filter {
  chain INPUT { type filter hook input priority 0; policy drop; counter accept; }
}`);
      expect(await nftablesVerdict(inNamespace)).toEqual({ readable: true, drops: false });
    });

    it('an empty ruleset is no firewall; the collector says enabled false, not unknown', async () => {
      await ns.exec('nft', ['flush', 'ruleset']);
      const quiet: CommandRunner = async (file, args) =>
        basename(file) === 'systemctl'
          ? { stdout: 'inactive\ninactive\n', stderr: '', code: 3 }
          : inNamespace(file, args);
      const fact = await collectLinuxFirewall(
        factEnvironment({ run: quiet, etcRoot: join(tmpdir(), 'none') }),
      );
      expect(fact).toEqual({ enabled: false });
    });

    it('a ruleset that cannot be read (no CAP_NET_ADMIN) is unknown with the reason, never on', async () => {
      // setpriv drops every capability, as for an agent running as an ordinary user.
      const unprivileged: CommandRunner = (file, args) =>
        basename(file) === 'systemctl'
          ? Promise.resolve({ stdout: 'inactive\ninactive\n', stderr: '', code: 3 })
          : ns.exec('setpriv', [
              '--reuid=65534',
              '--regid=65534',
              '--clear-groups',
              '--inh-caps=-all',
              file,
              ...args,
            ]);
      await load(`table inet filter {
  chain input { type filter hook input priority 0; policy drop; }
}`);
      const fact = await collectLinuxFirewall(
        factEnvironment({ run: unprivileged, etcRoot: join(tmpdir(), 'none') }),
      );
      expect(fact.enabled).toBeNull();
      expect(fact.unknownReason).toMatch(/needs root/);
    });
  },
);

function gsettingsUnavailable(): string {
  if (process.platform !== 'linux') return 'Linux only';
  if (!has('dbus-run-session', ['--version'])) return 'dbus-run-session (dbus) is not installed';
  if (!has('gsettings', ['--version'])) return 'gsettings (libglib2.0-bin) is not installed';
  const schemas = spawnSync('gsettings', ['list-keys', 'org.gnome.desktop.screensaver'], {
    encoding: 'utf8',
  });
  if (schemas.status !== 0) return 'the GNOME schemas (gsettings-desktop-schemas) are not installed';
  return '';
}

const gsettingsWhy = gsettingsUnavailable();

describe.skipIf(gsettingsWhy !== '')(
  `SCREEN_LOCK on Linux, GNOME settings through gsettings in a D-Bus session${gsettingsWhy ? ` (skipped: ${gsettingsWhy})` : ''}`,
  () => {
    const config = mkdtempSync(join(tmpdir(), 'postern-gsettings-'));
    // The keyfile backend keeps what `gsettings set` writes in this folder, so separate processes see it.
    const env = { ...process.env, GSETTINGS_BACKEND: 'keyfile', XDG_CONFIG_HOME: config };
    const inSession: CommandRunner = (file, args) =>
      new Promise<CommandResult>((resolve) => {
        execFile(
          'dbus-run-session',
          ['--', file, ...args],
          { env, encoding: 'utf8' },
          (error, stdout, stderr) =>
            resolve({
              stdout,
              stderr,
              code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
            }),
        );
      });
    const set = async (schema: string, key: string, value: string) =>
      expect((await inSession('gsettings', ['set', schema, key, value])).code).toBe(0);
    const collect = () =>
      collectLinuxScreenLock(
        factEnvironment({
          run: inSession,
          uid: 1000, // the test runs as root; the agent of a desktop session does not
          home: config,
          env: { XDG_CURRENT_DESKTOP: 'GNOME', XDG_CONFIG_HOME: config },
        }),
      );
    afterAll(() => rmSync(config, { recursive: true, force: true }));

    it('locks after the idle delay plus the lock delay, in minutes', async () => {
      await set('org.gnome.desktop.screensaver', 'lock-enabled', 'true');
      await set('org.gnome.desktop.session', 'idle-delay', 'uint32 600');
      await set('org.gnome.desktop.screensaver', 'lock-delay', 'uint32 120');
      expect(await collect()).toEqual({ lockEnabled: true, idleMinutes: 12 });
    }, 30_000);

    it('does not lock when lock-enabled is false, or when the screen never blanks (idle-delay 0)', async () => {
      await set('org.gnome.desktop.session', 'idle-delay', 'uint32 300');
      await set('org.gnome.desktop.screensaver', 'lock-enabled', 'false');
      expect(await collect()).toEqual({ lockEnabled: false, idleMinutes: null });
      await set('org.gnome.desktop.screensaver', 'lock-enabled', 'true');
      await set('org.gnome.desktop.session', 'idle-delay', 'uint32 0');
      expect(await collect()).toEqual({ lockEnabled: false, idleMinutes: null });
    }, 30_000);
  },
);
