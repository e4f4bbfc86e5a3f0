/**
 * `npm run demo` as a user runs it (scripts/demo.ts in a child process, with its own temp folder): the
 * demo's data goes to a fresh folder under the temp folder, named on the first line, and is gone after
 * Ctrl-C, whether the console was up or still starting; `--keep` keeps it and says where, and
 * `--data-dir` runs the demo on a kept folder again without deleting it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const DEMO = join(import.meta.dirname, '..', '..', 'scripts', 'demo.ts');
const CONSOLE_UP = /Reporting every \d+ s/;

interface DemoRun {
  child: ChildProcessWithoutNullStreams;
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

let temp: string;
beforeEach(() => {
  // The demo's own temp folder (TMPDIR), so the test sees exactly what it leaves behind.
  temp = realpathSync(mkdtempSync(join(tmpdir(), 'postern-demo-test-')));
});
afterEach(() => rmSync(temp, { recursive: true, force: true }));

/** The demo folders left in the temp folder (tsx keeps its cache there too). */
const demoFolders = () => readdirSync(temp).filter((name) => name.startsWith('postern-demo-'));

function runDemo(args: string[] = []): DemoRun {
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp };
  delete env.POSTERN_ADMIN_PASSWORD;
  const child = spawn(process.execPath, ['--import', 'tsx', DEMO, '--interval', '60', ...args], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return {
    child,
    exited,
    output: () => output,
    async waitFor(pattern) {
      const deadline = Date.now() + 45_000;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`the demo exited before ${pattern}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} from the demo:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** The folder the first line names. */
async function demoFolder(run: DemoRun): Promise<{ path: string; line: string }> {
  const [line, path] = await run.waitFor(/^demo data: (\S+) \(.*\)$/m);
  return { path: path!, line };
}

describe('npm run demo', () => {
  it('runs in a fresh folder under the temp folder and deletes it after Ctrl-C', async () => {
    const run = runDemo();
    const { path, line } = await demoFolder(run);
    expect(line).toBe(`demo data: ${path} (deleted on exit; --keep keeps it)`);
    expect(path.startsWith(join(temp, 'postern-demo-'))).toBe(true);
    await run.waitFor(CONSOLE_UP);
    expect(existsSync(join(path, 'controller', 'postern.db'))).toBe(true);
    // The console's address, and where the admin password it asks for is.
    const [, controllerUrl] = /Postern demo: controller on (\S+)/.exec(run.output())!;
    expect(run.output()).toContain(
      `Administrators' console: ${controllerUrl}/console/ (user admin, the password in ${join(path, 'controller', 'admin-password')})`,
    );

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('Stopped.');
    expect(existsSync(path)).toBe(false);
    expect(demoFolders()).toEqual([]);
  }, 90_000);

  it('deletes the folder after Ctrl-C while still starting', async () => {
    const run = runDemo();
    const { path } = await demoFolder(run);
    expect(existsSync(path)).toBe(true);

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.output()).not.toMatch(CONSOLE_UP);
    expect(existsSync(path)).toBe(false);
  }, 90_000);

  it('keeps the folder with --keep, and runs on it again with --data-dir', async () => {
    const first = runDemo(['--keep']);
    const { path, line } = await demoFolder(first);
    expect(line).toBe(`demo data: ${path} (kept on exit; --data-dir ${path} runs the demo on it again)`);
    await first.waitFor(CONSOLE_UP);
    first.child.stdin.write('quit\n');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain(`demo data kept in ${path}`);
    expect(existsSync(join(path, 'controller', 'postern.db'))).toBe(true);

    const again = runDemo(['--data-dir', path]);
    expect((await demoFolder(again)).line).toBe(`demo data: ${path} (your folder: kept on exit)`);
    await again.waitFor(CONSOLE_UP);
    // The controller of the first run, with its admin: no new password made.
    expect(again.output()).not.toContain('Admin password (shown once)');
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
    expect(existsSync(join(path, 'controller', 'postern.db'))).toBe(true);
    expect(demoFolders()).toEqual([path.slice(temp.length + 1)]);
  }, 120_000);
});
