/**
 * Scripts can trust `--json`: every command of the agent CLI and the admin CLI that takes `--json`, run as a
 * child process against a real controller (with its embedded router, so `run` opens tunnels), prints only
 * JSON on standard output, one value per line; text for people goes to standard error.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminCli, type AdminCli, type CliRun } from '../helpers/admin-cli-process.js';
import { createUser } from '../helpers/api.js';
import { adminApi, guardedService, machineFacts } from '../helpers/agent-setup.js';
import { ADMIN_PASSWORD, startTestBundle, tempDir, type TestController } from '../helpers/controller.js';

const AGENT_CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const configDir = tempDir('postern-json-config-');
const enrollDir = tempDir('postern-json-enroll-');
let controller: TestController;
let admin: AdminCli;

function agent(args: string[], dir = configDir, password = 'json-password') {
  return spawn(
    process.execPath,
    ['--import', 'tsx', AGENT_CLI, '--credential-store', 'memory', '--config-dir', dir, ...args],
    { env: { ...process.env, POSTERN_PASSWORD: password, POSTERN_TOTP_CODE: '' } },
  );
}

function agentRun(args: string[], dir?: string, password?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = agent(args, dir, password);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end('');
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every line of standard output parsed as JSON (a line that is not JSON fails, naming it). */
function jsonLines(run: Pick<CliRun, 'stdout'>): unknown[] {
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new Error(`a line of standard output is not JSON: ${JSON.stringify(line)}\n${run.stdout}`);
      }
    });
}

/** Succeeded, and printed exactly `count` JSON lines (each parsed). */
function jsonResult(run: CliRun, count = 1): unknown[] {
  expect(run.code, run.stderr).toBe(0);
  const values = jsonLines(run);
  expect(values, run.stdout).toHaveLength(count);
  return values;
}

beforeAll(async () => {
  controller = await startTestBundle();
  const api = await adminApi(controller.url);
  await createUser(api, 'json-user', 'json-password', { roleAttributes: ['json'] });
  await createUser(api, 'json-mfa-user', 'json-password', { roleAttributes: ['json'] });
  await guardedService(api, 'json-kernel', 'json', {
    typeId: 'OS',
    operatingSystems: [{ type: 'Linux', versions: [machineFacts().osRange] }],
  });
  await guardedService(api, 'json-open', 'json');
  admin = await buildAdminCli(() => ({
    POSTERN_CONTROLLER_URL: controller.url,
    POSTERN_ADMIN_USERNAME: 'admin',
    POSTERN_ADMIN_PASSWORD: ADMIN_PASSWORD,
    POSTERN_CREDENTIAL_STORE: 'memory',
    POSTERN_TOTP_CODE: '',
  }));
}, 60_000);

afterAll(async () => {
  admin?.dispose();
  await controller?.dispose();
  rmSync(configDir, { recursive: true, force: true });
  rmSync(enrollDir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('--json prints only JSON, one value per line', () => {
  it('agent: login, status, services, report, check, mfa status, mfa setup, logout', async () => {
    const login = await agentRun(['--controller', controller.url, 'login', 'json-user', '--json']);
    expect(login.code, login.stderr).toBe(0);
    jsonLines(login);
    const [status] = jsonResult(await agentRun(['status', '--json']));
    expect(status).toMatchObject({ state: 'active', username: 'json-user' });
    const [services] = jsonResult(await agentRun(['services', '--json']));
    expect((services as { name: string }[]).map((s) => s.name)).toEqual(['json-kernel', 'json-open']);
    const [report] = jsonResult(await agentRun(['report', '--json']));
    expect(report).toMatchObject({ sent: [{ typeId: 'OS' }] });
    const [check] = jsonResult(await agentRun(['check', '--json']));
    expect(check).toMatchObject({ sent: [{ typeId: 'OS' }] });
    const [mfa] = jsonResult(await agentRun(['mfa', 'status', '--json']));
    expect(mfa).toMatchObject({ state: 'not-enrolled' });

    // another user, so this one's services stay reachable without a code
    const other = await agentRun(['--controller', controller.url, 'login', 'json-mfa-user'], enrollDir);
    expect(other.code, other.stderr).toBe(0);
    const [enrollment] = jsonResult(await agentRun(['mfa', 'setup', '--json'], enrollDir));
    expect(enrollment).toMatchObject({ provisioningUrl: expect.stringMatching(/^otpauth:\/\//) });

    const logout = await agentRun(['logout', '--json']);
    expect(logout.code, logout.stderr).toBe(0);
    jsonLines(logout);
  }, 120_000);

  it('agent: run --json prints services and tunnel events as JSON, the table and console text on stderr', async () => {
    const dir = tempDir('postern-json-run-');
    try {
      const login = await agentRun(['--controller', controller.url, 'login', 'json-user'], dir);
      expect(login.code, login.stderr).toBe(0);
      const child = agent(['run', '--json', '--interval', '1', '--socks-port', '0'], dir);
      let stdout = '';
      let stderr = '';
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      const waiters: (() => void)[] = [];
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
        waiters.forEach((w) => w());
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        waiters.forEach((w) => w());
      });
      const until = (what: string, done: () => boolean) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`never saw ${what}:\nstdout:\n${stdout}\nstderr:\n${stderr}`)),
            45_000,
          );
          const check = () => {
            if (!done()) return;
            clearTimeout(timer);
            resolve();
          };
          waiters.push(check);
          check();
        });
      const events = () => jsonLines({ stdout: stdout.slice(0, stdout.lastIndexOf('\n') + 1) });
      const granted = (e: unknown) =>
        (e as { event?: string }).event === 'services' &&
        (e as { services: { access: string }[] }).services.every((s) => s.access === 'granted');
      await until('every service granted, as a JSON event', () => events().some(granted));
      await until('a tunnel listening event', () =>
        events().some((e) => (e as { event?: string }).event === 'listening'),
      );
      child.stdin.write('status\n');
      await until('the status lines on stderr', () => stderr.includes('session     signed in'));
      child.stdin.write('quit\n');
      expect(await exited).toBe(0);
      // the table went to people, on stderr
      expect(stderr).toMatch(/SERVICE\s+ACCESS/);
      expect(stdout).not.toMatch(/SERVICE\s+ACCESS/);
      jsonLines({ stdout });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('admin: list, show, create, update, delete, an action, enroll show and reissue, login and logout', async () => {
    const kept = ['--credential-store', 'file', '--config-dir', join(configDir, 'admin-kept')];
    const login = await admin.run(['login', '--json', ...kept]);
    jsonResult(login);
    const [created] = jsonResult(
      await admin.run(['identities', 'create', 'json-made', '--json', ...kept]),
    ) as { id: string }[];
    jsonResult(await admin.run(['identities', 'list', '--json', ...kept]));
    jsonResult(await admin.run(['identities', 'show', 'json-made', '--json', ...kept]));
    jsonResult(await admin.run(['identities', 'update', 'json-made', '--role', 'a', '--json', ...kept]));
    jsonResult(await admin.run(['enroll', 'show', 'json-made', '--json', ...kept]));
    jsonResult(await admin.run(['enroll', 'reissue', 'json-made', '--json', ...kept]));
    jsonResult(await admin.run(['services', 'list', '--json', ...kept]));
    jsonResult(await admin.run(['routers', 'list', '--json', ...kept]));
    const [router] = jsonResult(await admin.run(['routers', 'create', 'json-router', '--json', ...kept])) as {
      id: string;
    }[];
    jsonResult(await admin.run(['routers', 're-enroll', router!.id, '--json', ...kept]));
    jsonResult(await admin.run(['identities', 'delete', created!.id, '--json', ...kept]));
    jsonResult(await admin.run(['logout', '--json', ...kept]));
    jsonResult(await admin.run(['logout', '--json', ...kept]));
  }, 120_000);
});
