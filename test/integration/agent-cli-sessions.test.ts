/**
 * One API session per sign-in: the CLI with the file credential store (a machine without a keychain) keeps
 * its session between commands in a 0600 file that never holds the password, and `logout` ends it on the
 * controller. Because it is one session, an MFA enrollment started by one command is finished by the next;
 * any other session of the same identity sees that an enrollment is pending, never its secret, and cannot
 * verify it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { adminApi, totpAt } from '../helpers/agent-setup.js';
import { withoutProgress } from '../helpers/cli-progress.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
let controller: TestController;
let admin: Api;
const dirs: string[] = [];

beforeAll(async () => {
  controller = await startTestController();
  admin = await adminApi(controller.url);
});
afterAll(async () => {
  await controller?.dispose();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A CLI bound to its own config folder, with the file credential store. */
function cliFor(username: string, password: string) {
  const configDir = tempDir('postern-cli-sessions-');
  dirs.push(configDir);
  const run = (args: string[], input = '', env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', CLI, '--credential-store', 'file', '--config-dir', configDir, ...args],
        { env: { ...process.env, POSTERN_PASSWORD: password, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.stdin.end(input);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  return { run, configDir, login: () => run(['--controller', controller.url, 'login', username]) };
}

async function apiSessionsOf(identityId: string): Promise<number> {
  const res = await admin.get(`${MGMT}/api-sessions?limit=500`);
  return (res.body.data as { identityId: string }[]).filter((s) => s.identityId === identityId).length;
}

describe.runIf(process.platform === 'linux')('CLI sessions', () => {
  it('keeps one API session across commands in a private file without the password; logout ends it', async () => {
    const id = await createUser(admin, 'one-session', 'one-session-password');
    const cli = cliFor('one-session', 'one-session-password');
    expect((await cli.login()).code).toBe(0);
    for (const command of ['status', 'services', 'status']) expect((await cli.run([command])).code).toBe(0);
    expect(await apiSessionsOf(id)).toBe(1);

    const file = join(cli.configDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = readFileSync(file, 'utf8');
    expect(stored).toContain('agent-session');
    expect(stored).not.toContain('one-session-password');

    expect((await cli.run(['logout'])).code).toBe(0);
    expect(await apiSessionsOf(id)).toBe(0);
    expect(existsSync(file) ? readFileSync(file, 'utf8') : '').not.toContain('agent-session');
  });

  it('finishes an enrollment started by an earlier command; another session sees no secret and cannot verify', async () => {
    await createUser(admin, 'split-enroll', 'split-enroll-password');
    const cli = cliFor('split-enroll', 'split-enroll-password');
    expect((await cli.login()).code).toBe(0);
    const started = await cli.run(['mfa', 'enroll', '--json']);
    expect(started.code).toBe(0);
    const { secret } = JSON.parse(started.stdout) as { secret: string };

    // the same identity signed in elsewhere
    const other = new Api(controller.url);
    expect((await other.login('split-enroll', 'split-enroll-password', CLIENT)).status).toBe(200);
    const seen = await other.get(`${CLIENT}/current-identity/mfa`);
    expect(seen.status).toBe(200);
    expect(seen.body.data.isVerified).toBe(false);
    expect(seen.body.data.provisioningUrl).toBeUndefined();
    expect(seen.body.data.recoveryCodes).toBeUndefined();
    expect(JSON.stringify(seen.body)).not.toContain(secret);
    const code = await totpAt(secret, Date.now());
    const stolen = await other.post(`${CLIENT}/current-identity/mfa/verify`, { code });
    expect(stolen.status).toBe(409);
    expect(stolen.body.error.code).toBe('MFA_ENROLLMENT_IN_OTHER_SESSION');
    expect((await other.get(`${CLIENT}/current-identity/mfa/qr-code`)).status).toBe(409);

    // the CLI's next command is the session that started it: the code piped on stdin finishes it
    const verified = await cli.run(['mfa', 'verify'], `${code}\n`);
    expect(withoutProgress(verified.stderr)).toBe('');
    expect(verified.stdout).toContain('MFA is set up.');
  });
});
