/**
 * No silent waits, on the CLI as users run it (`tsx src/agent/cli.ts`, a child process): the sign-in after
 * too many wrong passwords says how long to wait and why; a controller that accepts the connection but does
 * not answer is named, with the address tried, while the agent still waits for it.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/api.js';
import { startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { adminApi } from '../helpers/agent-setup.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const configDir = tempDir('postern-cli-waits-');
let controller: TestController;

/** Runs the CLI until it exits, or until `until` is printed (then stops it); all output together. */
function cli(
  args: string[],
  password: string,
  until?: string,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
      { env: { ...process.env, POSTERN_PASSWORD: password }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let out = '';
    const timer = setTimeout(() => child.kill('SIGTERM'), 30_000);
    const take = (c: Buffer) => {
      out += c.toString();
      if (until && out.includes(until)) child.kill('SIGTERM');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.stdin.end('');
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
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
    let out = '';
    for (let attempt = 1; attempt <= 8 && !out.includes('too many'); attempt++)
      ({ out } = await cli(
        ['--controller', controller.url, 'login', 'waits-user'],
        'not-the-password',
        'too many failed sign-ins',
      ));
    expect(out).toMatch(/too many failed sign-ins; wait \d+ s/);
  }, 120_000);

  it('names a controller that does not answer, with the address tried, while still waiting for it', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const run = await cli(['--controller', url, 'login', 'waits-user'], 'waits-password', 'still waiting');
      expect(run.out).toContain(`still waiting for the controller at ${url}`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  }, 60_000);
});
