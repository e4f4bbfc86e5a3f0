import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import type { ControllerConfig } from '../../controller/config.js';
import { startController, type RunningController } from '../../controller/composition/start-controller.js';
import { databaseFor, testConfig } from './test-database.js';
import { startBundle } from '../../server/bundle.js';

export const ADMIN_PASSWORD = 'admin-password-for-tests';

export function tempDir(prefix = 'postern-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestController extends RunningController {
  dataDir: string;
  /** closes the server and removes the data dir */
  dispose(): Promise<void>;
}

/** A real controller (real HTTP on loopback, real SQLite file) in this process, on a free port. */
export async function startTestController(
  overrides: Partial<ControllerConfig> = {},
): Promise<TestController> {
  const dataDir = overrides.dataDir ?? tempDir();
  const config = await testConfig(dataDir, overrides);
  const running = await startController(config, { adminPassword: ADMIN_PASSWORD });
  return {
    ...running,
    dataDir,
    async dispose() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The same, with its embedded edge router running (as `npm run controller` starts it), for tunnel tests. */
export async function startTestBundle(overrides: Partial<ControllerConfig> = {}): Promise<TestController> {
  const dataDir = overrides.dataDir ?? tempDir();
  const config = await testConfig(dataDir, overrides);
  const bundle = await startBundle(config, {
    adminPassword: ADMIN_PASSWORD,
    router: { enabled: true, graceSeconds: 30 },
  });
  return {
    ...bundle.controller,
    dataDir,
    async dispose() {
      await bundle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ControllerProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** sends a signal and resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const CLI = join(import.meta.dirname, '..', '..', 'server', 'cli.ts');

/** The controller as users run it (`server/cli.ts`, with its embedded router), in a child process; resolves once it is listening. */
export async function spawnController(
  args: string[],
  env: Record<string, string | undefined> = {},
  /** a command the controller runs under, e.g. `['prlimit', '--nofile=256:256', '--']` */
  wrapper: string[] = [],
  /** how long it may take to listen: tsx compiles the controller at each start, slow on a loaded machine */
  startTimeoutMs = 90_000,
): Promise<ControllerProcess> {
  // On the suite's PostgreSQL run, the folder's own database (a restart on the folder finds its data).
  const dataDir = args[args.indexOf('--data-dir') + 1];
  const database = args.includes('--data-dir') && dataDir ? await databaseFor(dataDir) : undefined;
  const command = [...wrapper, process.execPath, '--import', 'tsx', CLI, ...args];
  const child = spawn(command[0]!, command.slice(1), {
    env: { ...process.env, ...(database ? { POSTERN_DATABASE_URL: database } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`controller did not start in ${startTimeoutMs} ms:\n${output}`)),
      startTimeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1]!,
          output: () => output,
          async stop(signal = 'SIGTERM') {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`controller exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Runs the CLI to completion (for argument errors and --help). */
export function runControllerCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
