/**
 * The admin CLI as a program for tests: `src/admin/cli.ts` bundled once with esbuild (the compiler tsx runs
 * on), then run as `node` child processes, each with its own arguments, environment and standard input.
 * A test file runs it dozens of times; compiling once spares each run tsx's start-up. The bundle keeps the
 * packages as imports, resolved through a link to the repository's node_modules.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { tempDir } from './controller.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AdminCli {
  run(args: string[], env?: Record<string, string>, input?: string): Promise<CliRun>;
  /** a command that runs until stopped (`audit list --follow`), its output read as it comes */
  start(args: string[], env?: Record<string, string>): ChildProcessWithoutNullStreams;
  dispose(): void;
}

/** `node ARGS` to completion, with what it printed. */
export function runNode(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: options.env, cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(options.input ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export async function buildAdminCli(baseEnv: () => Record<string, string>): Promise<AdminCli> {
  const dir = tempDir('postern-admin-bin-');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const program = join(dir, 'postern-admin.mjs');
  await build({
    entryPoints: [join(ROOT, 'src', 'admin', 'cli.ts')],
    outfile: program,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  return {
    run: (args, env = {}, input = '') =>
      runNode([program, ...args], { env: { ...process.env, ...baseEnv(), ...env }, input }),
    start: (args, env = {}) =>
      spawn(process.execPath, [program, ...args], { env: { ...process.env, ...baseEnv(), ...env } }),
    dispose() {
      // the link first, by itself: nothing may reach through it into the repository's node_modules
      unlinkSync(join(dir, 'node_modules'));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
