import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { networkInterfaces } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LinuxCollector } from '../../../src/agent/collectors/linux-collector.js';

const onLinux = process.platform === 'linux';
const dir = mkdtempSync(join(tmpdir(), 'postern-real-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function startSleeper(file: string): Promise<ChildProcess> {
  const child = spawn(file, ['30'], { stdio: 'ignore' });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

function sha256sum(file: string): string {
  return execFileSync('sha256sum', [file], { encoding: 'utf8' }).split(' ')[0] ?? '';
}

describe.skipIf(!onLinux)('LinuxCollector against this machine (real /proc)', () => {
  const collector = new LinuxCollector();

  it('finds a spawned sleep by its /proc/<pid>/exe path, with the hash sha256sum gives', async () => {
    const child = await startSleeper('sleep');
    const exe = readlinkSync(`/proc/${child.pid}/exe`);
    const [answer] = await collector.collectProcesses([{ id: 'sleep', path: exe }]);
    expect(answer).toEqual({
      id: 'sleep',
      typeId: 'PROCESS',
      path: exe,
      isRunning: true,
      hash: sha256sum(exe),
      signerFingerprints: [],
    });
  });

  it('never reads a file that is neither a running program nor an executable for the controller', async () => {
    const secret = join(dir, 'not-a-program.key');
    writeFileSync(secret, 'private key material', { mode: 0o600 });
    const program = join(dir, 'stopped-program');
    writeFileSync(program, '#!/bin/sh\n', { mode: 0o755 });
    const answers = await collector.collectProcesses([
      { id: 'secret', path: secret },
      { id: 'shadow', path: '/etc/shadow' },
      { id: 'program', path: program },
    ]);
    expect(answers.map((a) => [a.id, a.isRunning, a.hash])).toEqual([
      ['secret', false, ''],
      ['shadow', false, ''],
      // An executable that is not running is still hashed: it lets the user see a wrong build.
      ['program', false, sha256sum(program)],
    ]);
  });

  it('sees a uniquely named binary start and stop', async () => {
    const unique = join(dir, 'postern-test-sleeper');
    // A private copy of sleep, so no other process on the machine can share its path.
    copyFileSync(
      realpathSync(execFileSync('sh', ['-c', 'command -v sleep'], { encoding: 'utf8' }).trim()),
      unique,
    );
    chmodSync(unique, 0o755);
    const query = [{ id: 'u', path: unique }];
    expect((await collector.collectProcesses(query))[0]?.isRunning).toBe(false);

    const child = await startSleeper(unique);
    const running = (await collector.collectProcesses(query))[0];
    expect(running?.isRunning).toBe(true);
    expect(running?.hash).toBe(sha256sum(unique));

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect((await collector.collectProcesses(query))[0]?.isRunning).toBe(false);
  });

  it('reports the kernel release uname -r gives, split into version and build', async () => {
    const os = await collector.collectOs('os');
    const release = execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim();
    expect(os.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(release.startsWith(os.version)).toBe(true);
    expect(release.endsWith(os.build ?? '')).toBe(true);
  });

  it('reports exactly the addresses of addressed interfaces that sysfs lists as up', async () => {
    const up = new Set<string>();
    for (const name of readdirSync('/sys/class/net')) {
      const state = readFileSync(`/sys/class/net/${name}/operstate`, 'utf8').trim();
      if (state === 'up' || state === 'unknown')
        up.add(readFileSync(`/sys/class/net/${name}/address`, 'utf8').trim());
    }
    const addressed = Object.entries(networkInterfaces())
      .filter(
        ([name, infos]) =>
          (infos ?? []).some((i) => !i.internal) &&
          up.has(readFileSync(`/sys/class/net/${name}/address`, 'utf8').trim()),
      )
      .map(([name]) => readFileSync(`/sys/class/net/${name}/address`, 'utf8').trim())
      .filter((mac) => mac !== '00:00:00:00:00:00');
    const { macAddresses } = await collector.collectMac('mac');
    for (const mac of macAddresses) {
      expect(mac).toMatch(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
      expect(up).toContain(mac);
    }
    expect(macAddresses).toEqual([...new Set(addressed)].sort());
  });
});
