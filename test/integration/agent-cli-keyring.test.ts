/**
 * The CLI with its default credential store, the OS keychain: gnome-keyring in a private D-Bus session
 * with a fresh HOME. After `login`, later commands sign in from the keychain alone (no POSTERN_PASSWORD),
 * nothing secret lands in the settings file, and `logout` removes what was stored.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/api.js';
import { startTestController, type TestController } from '../helpers/controller.js';
import { adminApi, guardedService } from '../helpers/agent-setup.js';

const REQUIRED = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon'];
const onPath = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const missing = process.platform === 'linux' ? REQUIRED.filter((c) => !onPath(c)) : ['Linux'];

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
// Each step prints its exit code after a marker, so one session (one keyring) runs the whole story.
const SESSION_SCRIPT = `
printf %s keyring-test-password | gnome-keyring-daemon --daemonize --unlock --components=secrets >/dev/null || exit 91
i=0
until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
  org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; do
  i=$((i + 1)); [ "$i" -gt 100 ] && exit 92; sleep 0.1
done
agent() { node --import tsx "$CLI" --controller "$URL" "$@"; echo "== exit $?"; }
echo "== login"; POSTERN_PASSWORD=keyring-cli-password agent login keyring-user
echo "== services"; agent services --json
echo "== logout"; agent logout
echo "== after"; agent services`;

let controller: TestController;
const home = mkdtempSync(join(tmpdir(), 'postern-cli-keyring-home-'));

beforeAll(async () => {
  if (missing.length) return;
  controller = await startTestController();
  const admin = await adminApi(controller.url);
  await createUser(admin, 'keyring-user', 'keyring-cli-password', { roleAttributes: ['kr'] });
  await guardedService(admin, 'kr-open', 'kr');
});

afterAll(async () => {
  await controller?.dispose();
  rmSync(home, { recursive: true, force: true });
});

function runSession(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    CLI,
    URL: controller.url,
  };
  for (const name of [
    'DBUS_SESSION_BUS_ADDRESS',
    'XDG_RUNTIME_DIR',
    'GNOME_KEYRING_CONTROL',
    'DISPLAY',
    'POSTERN_PASSWORD',
    'POSTERN_CONFIG_DIR',
    'POSTERN_CREDENTIAL_STORE',
  ]) {
    delete env[name];
  }
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', SESSION_SCRIPT], {
    env,
    cwd: join(import.meta.dirname, '..', '..'),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The output of each `== step` up to its `== exit N`. */
function steps(stdout: string): Record<string, { out: string; exit: number }> {
  const result: Record<string, { out: string; exit: number }> = {};
  for (const m of stdout.matchAll(/== (\w+)\n([\s\S]*?)== exit (\d+)/g))
    result[m[1]!] = { out: m[2]!, exit: Number(m[3]) };
  return result;
}

describe.skipIf(missing.length > 0)(
  `CLI with the OS keychain${missing.length ? ` (skipped: missing ${missing.join(', ')})` : ''}`,
  () => {
    it('keeps the login in the keychain: later commands need no password, logout removes it', async () => {
      const run = await runSession();
      expect(run.code, run.stderr).toBe(0);
      const s = steps(run.stdout);
      expect(s.login).toMatchObject({ exit: 0 });
      expect(s.login!.out).toContain('Signed in');
      expect(s.services?.exit, run.stderr).toBe(0);
      expect(JSON.parse(s.services!.out)).toEqual([
        expect.objectContaining({ name: 'kr-open', access: 'granted' }),
      ]);
      expect(s.logout).toMatchObject({ exit: 0 });
      expect(s.after?.exit).toBe(4);
      expect(run.stderr).toContain('not signed in');

      const settings = readFileSync(join(home, '.config', 'postern', 'agent.json'), 'utf8');
      expect(JSON.parse(settings)).toEqual({ controllerUrl: controller.url, username: 'keyring-user' });
      expect(settings).not.toContain('keyring-cli-password');
    }, 60_000);
  },
);
