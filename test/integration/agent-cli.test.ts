/**
 * The headless CLI as users run it (`tsx src/agent/cli.ts`, a child process) against a real controller,
 * with the memory credential store: later commands sign in again from POSTERN_PASSWORD and the remembered
 * controller URL and username.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/api.js';
import { startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { adminApi, guardedService, machineFacts } from '../helpers/agent-setup.js';
import { withoutProgress } from '../helpers/cli-progress.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const configDir = tempDir('postern-cli-config-');
let controller: TestController;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], env: Record<string, string> = {}) {
  return spawn(
    process.execPath,
    ['--import', 'tsx', CLI, '--credential-store', 'memory', '--config-dir', configDir, ...args],
    {
      env: { ...process.env, POSTERN_PASSWORD: 'cli-password', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
}

function cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = start(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(input ?? '');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  controller = await startTestController();
  const admin = await adminApi(controller.url);
  await createUser(admin, 'cli-user', 'cli-password', { roleAttributes: ['cli'] });
  await guardedService(admin, 'kernel-gated', 'cli', {
    typeId: 'OS',
    operatingSystems: [{ type: 'Linux', versions: [machineFacts().osRange] }],
  });
  await guardedService(admin, 'everyone', 'cli');
});

afterAll(async () => {
  await controller?.dispose();
  rmSync(configDir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('postern-agent CLI', () => {
  it('logs in and remembers the controller and user, but no secret, in agent.json', async () => {
    const run = await cli(['--controller', controller.url, 'login', 'cli-user']);
    expect(withoutProgress(run.stderr)).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Signed in to ${controller.url} as cli-user.`);
    const saved = readFileSync(join(configDir, 'agent.json'), 'utf8');
    expect(JSON.parse(saved)).toEqual({ controllerUrl: controller.url, username: 'cli-user' });
    expect(saved).not.toContain('cli-password');
  });

  it('lists services as JSON, "checking" until posture is reported', async () => {
    const run = await cli(['services', '--json']);
    expect(run.code).toBe(0);
    const services = JSON.parse(run.stdout) as {
      name: string;
      access: string;
      failing: { explanation: string }[];
    }[];
    expect(services.map((s) => [s.name, s.access])).toEqual([
      ['everyone', 'granted'],
      ['kernel-gated', 'checking'],
    ]);
    expect(services[1]!.failing[0]!.explanation).toBe(
      'Waiting for this device to report its operating system',
    );
  });

  it('report runs one cycle, prints what was sent, and the service becomes reachable', async () => {
    const run = await cli(['report']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Sent 1 posture response:');
    expect(run.stdout).toMatch(/OS\s+Linux \d+\.\d+/);
    expect(run.stdout).toMatch(/kernel-gated\s+yes/);
    const services = JSON.parse((await cli(['services', '--json'])).stdout) as {
      name: string;
      access: string;
    }[];
    expect(services.every((s) => s.access === 'granted')).toBe(true);
  });

  it('status --json tells the session state and counts', async () => {
    const run = await cli(['status', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      state: 'active',
      username: 'cli-user',
      mfa: 'not-enrolled',
      services: { total: 2, granted: 2 },
    });
  });

  it('says "wrong username or password" in one line, exit 4', async () => {
    const run = await cli(['services'], { POSTERN_PASSWORD: 'not-the-password' });
    expect(run.code).toBe(4);
    expect(withoutProgress(run.stderr).trim()).toBe('postern-agent: wrong username or password');
  });

  it('refuses plain http:// to a controller that is not on loopback, before sending anything', async () => {
    // 0.0.0.0 is not a loopback name (it would reach this machine, so the old code sent the password to it).
    const run = await cli(['--controller', 'http://0.0.0.0:9', 'services']);
    expect(run.code).not.toBe(0);
    expect(run.code).not.toBe(3);
    expect(run.stderr).toContain('refusing plain http:// to 0.0.0.0:9');
    expect(run.stderr).toContain('--insecure');
  });

  it('names an unreachable controller in one line, exit 3', async () => {
    const run = await cli(['--controller', 'http://127.0.0.1:9', 'status']);
    expect(run.code).toBe(3);
    const down = await cli(['--controller', 'http://127.0.0.1:9', 'services']);
    expect(down.code).toBe(3);
    expect(withoutProgress(down.stderr).trim()).toMatch(
      /^postern-agent: cannot reach the controller at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)$/,
    );
  });

  it('refuses a wrong MFA code in one line, exit 5', async () => {
    // the code read from stdin, as a script pipes it (the memory store keeps no session between commands,
    // and an enrollment is finished by the session that started it: one command here)
    const run = await cli(['mfa', 'enroll'], {}, '000000\n');
    expect(run.code).toBe(5);
    expect(withoutProgress(run.stderr).trim()).toBe(
      'postern-agent: wrong code: enter the current code from your authenticator app',
    );
    expect((await cli(['mfa', 'remove'])).stdout).toContain('abandoned');
  });

  it('takes a code from POSTERN_TOTP_CODE, and warns that one on the command line stays in shell history', async () => {
    const fromEnv = await cli(['mfa', 'enroll'], { POSTERN_TOTP_CODE: '000000' });
    expect(fromEnv.code).toBe(5);
    expect(fromEnv.stderr).toContain('wrong code');
    expect(fromEnv.stderr).not.toContain('shell history');
    expect((await cli(['mfa', 'remove'])).stdout).toContain('abandoned');
    const onCommandLine = await cli(['mfa', 'enroll', '000000']);
    expect(onCommandLine.code).toBe(5);
    expect(onCommandLine.stderr).toContain('stays in your shell history');
    expect((await cli(['mfa', 'remove'])).stdout).toContain('abandoned');
  });

  it('run keeps reporting, takes console commands, and shuts down cleanly on SIGTERM', async () => {
    const child = start(['run', '--interval', '1']);
    let stdout = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`never printed '${text}':\n${stdout}`)), 20_000);
        const check = () => {
          if (!stdout.includes(text)) return;
          clearTimeout(timer);
          resolve();
        };
        child.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          check();
        });
        check();
      });
    await seen('Reporting every 1 s.');
    child.stdin.write('status\n');
    await seen('session     signed in');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('Stopped.');
  }, 40_000);
});
