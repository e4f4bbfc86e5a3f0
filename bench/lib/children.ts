/**
 * The processes a bench drives: the controller as users run it (the CLI, in a child process, on loopback)
 * and the bare fastify baseline, also in its own child, so load generation never shares an event loop with
 * the server it measures.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { spawnController, tempDir, ADMIN_PASSWORD } from '../../test/helpers/controller.js';
import { Api } from '../../test/helpers/api.js';

export { ADMIN_PASSWORD, tempDir };

/**
 * How long a bench's controller may take to listen. Each start compiles the controller through tsx, which
 * took over 30 s (the tests' bound) on a two-core machine at load average 15; a bench must not fail on that.
 */
export const CHILD_START_TIMEOUT_MS = 120_000;

export interface Child {
  pid: number;
  url: string;
  stop(): Promise<number | null>;
}

/**
 * Starts `controller/cli.ts` on `dataDir` (a fresh temp dir by default). Log level `warn`: at `info`
 * fastify logs two lines per request, which would measure pino rather than the controller (the baseline
 * logs nothing either).
 */
export async function startControllerChild(
  dataDir = tempDir('postern-bench-'),
  env: Record<string, string> = {},
): Promise<Child & { dataDir: string }> {
  const proc = await spawnController(
    ['--data-dir', dataDir, '--port', '0', '--log-level', 'warn'],
    { POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env },
    [],
    CHILD_START_TIMEOUT_MS,
  );
  return { pid: proc.child.pid!, url: proc.url, dataDir, stop: () => proc.stop('SIGTERM') };
}

export async function adminOf(url: string): Promise<Api> {
  const admin = new Api(url);
  const res = await admin.login('admin', ADMIN_PASSWORD);
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return admin;
}

/**
 * Runs a TypeScript file in a child Node (through tsx) and resolves once it prints `listening on URL`.
 * `launcher` prefixes the command (`['ip', 'netns', 'exec', NS]` runs it in a network namespace; `ip` execs
 * Node in its place, so the child is still Node itself).
 */
export function spawnListening(script: string, args: string[] = [], launcher: string[] = []): Promise<Child> {
  const command = [...launcher, process.execPath, '--import', 'tsx', script, ...args];
  const child: ChildProcess = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        url: m[1]!,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${output}`));
    });
  });
}

/** The bare fastify server answering every POST/GET with a fixed JSON body of `bytes` bytes. */
export function startBaseline(bytes: number, status = 200): Promise<Child> {
  return spawnListening(join(import.meta.dirname, 'baseline-server.ts'), [String(bytes), String(status)]);
}

/**
 * CPU affinity for load benches on Linux (`taskset` from util-linux): the bench process, which generates the
 * load, takes the last core and the servers it measures share the others, so the load generator does not
 * compete with the server for the same cores. Returns a description for the figures' notes, or null when
 * the machine has a single core or no `taskset` (the run is then unpinned, as before).
 */
export interface Pinning {
  generator: string;
  servers: string;
  /** pins every thread of `pid` (a server child) to the server cores */
  pinServer(pid: number): void;
  /** gives the bench process every core back (the benches after this one run unpinned) */
  release(): void;
  describe(): string;
}

export function pinLoadGenerator(): Pinning | null {
  const cores = availableParallelism();
  if (process.platform !== 'linux' || cores < 2) return null;
  const generator = String(cores - 1);
  const servers = cores === 2 ? '0' : `0-${cores - 2}`;
  const pin = (pid: number, cpus: string) =>
    execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(pid)], { stdio: 'ignore' });
  try {
    pin(process.pid, generator);
  } catch {
    return null;
  }
  return {
    generator,
    servers,
    pinServer: (pid) => pin(pid, servers),
    release: () => pin(process.pid, `0-${cores - 1}`),
    describe: () => `load generator pinned to CPU ${generator}, server to CPU ${servers} (taskset)`,
  };
}
