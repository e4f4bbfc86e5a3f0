/**
 * A throwaway network namespace for the intercept-mode tests: every link, route, nft rule and resolv.conf
 * change a test makes happens inside it, never on the machine running the tests. `ip netns exec` bind-mounts
 * /etc/netns/<name>/resolv.conf over /etc/resolv.conf for the commands it runs, so the namespace has a
 * resolv.conf of its own, which the test reads and checks from outside at `resolvConf`.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CommandOutput {
  stdout: string;
  stderr: string;
  code: number | null;
}

export interface NetworkNamespace {
  name: string;
  /** the namespace's /etc/resolv.conf, as seen from outside */
  resolvConf: string;
  /** runs a command inside the namespace */
  exec(file: string, args: readonly string[]): Promise<CommandOutput>;
  /** starts `node --import tsx <script> …args` inside the namespace */
  spawnScript(script: string, args: readonly string[]): ChildProcess;
  /** deletes the namespace (everything inside goes with it) and its /etc/netns folder */
  remove(): void;
}

const ROOT = join(import.meta.dirname, '..', '..');

/** Why namespace tests cannot run here, or '' when they can. */
export function namespaceUnavailable(): string {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'not running as root (network namespaces need it)';
  const probe = `postern-t-probe-${randomBytes(4).toString('hex')}`;
  const added = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (added.error) return 'the ip command (iproute2) is not installed';
  if (added.status !== 0) return `ip netns add fails here: ${added.stderr.trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  if (spawnSync('nft', ['--version']).error) return 'the nft command (nftables) is not installed';
  return '';
}

function run(file: string, args: readonly string[]): Promise<CommandOutput> {
  return new Promise((resolve) => {
    execFile(file, [...args], { encoding: 'utf8', cwd: ROOT }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ stdout, stderr: stderr || (error && code === null ? error.message : ''), code });
    });
  });
}

/** A new namespace named postern-t-<random>, with loopback up and the given resolv.conf bytes. */
export async function createNamespace(resolvConf: string | Buffer): Promise<NetworkNamespace> {
  const name = `postern-t-${randomBytes(6).toString('hex')}`;
  const etc = join('/etc/netns', name);
  mkdirSync(etc, { recursive: true });
  writeFileSync(join(etc, 'resolv.conf'), resolvConf);
  const remove = () => {
    spawnSync('ip', ['netns', 'del', name]);
    rmSync(etc, { recursive: true, force: true });
  };
  const added = await run('ip', ['netns', 'add', name]);
  if (added.code !== 0) {
    remove();
    throw new Error(`ip netns add ${name} failed: ${added.stderr}`);
  }
  const exec = (file: string, args: readonly string[]) => run('ip', ['netns', 'exec', name, file, ...args]);
  await exec('ip', ['link', 'set', 'lo', 'up']);
  return {
    name,
    resolvConf: join(etc, 'resolv.conf'),
    exec,
    spawnScript: (script, args) =>
      spawn('ip', ['netns', 'exec', name, process.execPath, '--import', 'tsx', script, ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    remove,
  };
}
