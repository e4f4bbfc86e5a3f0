/**
 * No silent waits, on the CLI as users run it (`tsx src/agent/cli.ts`, a child process): the sign-in after
 * too many wrong passwords says how long to wait and why; a controller slow to answer is named once, with the
 * address tried, while the agent still waits for it.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/api.js';
import { startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { adminApi } from '../helpers/agent-setup.js';
import { withoutProgress } from '../helpers/cli-progress.js';
import { startSlowController } from '../helpers/slow-controller.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const configDir = tempDir('postern-cli-waits-');
let controller: TestController;

/** Runs the CLI until it exits, or until `until` is printed (then stops it); what it printed. */
function cli(
  args: string[],
  password: string,
  until?: string,
): Promise<{ code: number | null; stderr: string; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
      { env: { ...process.env, POSTERN_PASSWORD: password }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    let stderr = '';
    // a bound for a stuck CLI only: every run here ends by itself well before it
    const timer = setTimeout(() => child.kill('SIGTERM'), 90_000);
    const take = (c: Buffer) => {
      out += c.toString();
      if (until && out.includes(until)) child.kill('SIGTERM');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      take(c);
    });
    child.stdin.end('');
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, out });
    });
  });
}

beforeAll(async () => {
  controller = await startTestController();
  await createUser(await adminApi(controller.url), 'waits-user', 'waits-password');
});

afterAll(async () => {
  await controller?.dispose();
  rmSync(configDir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('postern-agent: no silent waits', () => {
  it('the sign-in after too many wrong passwords says how long to wait and why', async () => {
    // The wait is said whichever way the agent takes it: waiting for a short Retry-After (then trying again),
    // or giving up on a long one.
    let run = { out: '', stderr: '' };
    for (let attempt = 1; attempt <= 8 && !run.out.includes('too many'); attempt++)
      run = await cli(
        ['--controller', controller.url, 'login', 'waits-user'],
        'not-the-password',
        'too many failed sign-ins',
      );
    expect(run.out).toMatch(/too many failed sign-ins; wait \d+ s/);
    // the tests' withoutProgress takes out the waits taken, never the refusal that ends the command
    expect(withoutProgress(run.stderr)).not.toContain(', then trying again');
    if (run.stderr.includes('before trying again'))
      expect(withoutProgress(run.stderr)).toMatch(/too many failed sign-ins; wait \d+ s before trying again/);
  }, 120_000);

  it('names a controller slow to answer once, with the address tried, while it waits for it', async () => {
    // Every request is answered after 4 s, twice the 2 s after which the line is due, with a 503 the client
    // tries again (three requests in all): the line is said during the first wait and not again.
    const slow = await startSlowController(4_000);
    try {
      const run = await cli(['--controller', slow.url, 'login', 'waits-user'], 'waits-password');
      expect(slow.requests).toBeGreaterThan(1);
      const said = run.stderr
        .split('\n')
        .filter((line) => line === `postern-agent warning: still waiting for the controller at ${slow.url}`);
      expect(said, run.stderr).toHaveLength(1);
      expect(run.code).not.toBe(0);
      // the tests' withoutProgress takes out exactly that line: the one-line failure stays
      expect(withoutProgress(run.stderr).trim().split('\n'), run.stderr).toEqual([
        'postern-agent: the controller answered SERVER_BUSY: slow on purpose',
      ]);
    } finally {
      await slow.close();
    }
  }, 120_000);
});
