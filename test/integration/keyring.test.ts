import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The keyring store against a real Secret Service: gnome-keyring in a private D-Bus session with a
 * fresh HOME, so the developer's own keyring is never touched. Debian packages: gnome-keyring, dbus
 * (dbus-run-session, dbus-send) and libsecret-tools (secret-tool, used to look behind our code).
 */
const REQUIRED = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

const missing = process.platform === 'linux' ? REQUIRED.filter((c) => !onPath(c)) : ['Linux'];
const reason = missing.length ? ` (skipped: missing ${missing.join(', ')})` : '';

const PROBE = join(import.meta.dirname, '..', 'unit', 'credentials', 'keyring-probe.ts');
// A non-empty keyring password: with an empty one gnome-keyring asks a (display-less) prompter instead.
// The daemon forks before it owns its bus name, so wait for the name before running the probe.
const SESSION_SCRIPT = `
printf %s keyring-test-password | gnome-keyring-daemon --daemonize --unlock --components=secrets >/dev/null || exit 91
i=0
until dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
  org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'; do
  i=$((i + 1)); [ "$i" -gt 100 ] && exit 92; sleep 0.1
done
exec node --import tsx "$0"`;

const homes: string[] = [];
afterAll(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })));

function runProbe(input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const home = mkdtempSync(join(tmpdir(), 'postern-keyring-home-'));
  homes.push(home);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_DATA_HOME: join(home, '.local', 'share') };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR', 'GNOME_KEYRING_CONTROL', 'DISPLAY'])
    delete env[name];
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', SESSION_SCRIPT, PROBE], {
    env,
    cwd: join(import.meta.dirname, '..', '..'),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('KeyringCredentialStore against gnome-keyring', () => {
  it.skipIf(missing.length > 0)(
    `sets, reads, overwrites and deletes a secret in the Secret Service${reason}`,
    async () => {
      const secret = `s-${randomBytes(18).toString('base64url')}`;
      const replacement = `r-${randomBytes(18).toString('base64url')}`;
      const result = await runProbe(JSON.stringify({ secret, replacement }));

      // Never in any output, whether the probe passed or not.
      for (const value of [secret, replacement]) {
        expect(result.stdout).not.toContain(value);
        expect(result.stderr).not.toContain(value);
      }
      expect(result.code, `probe exited with ${String(result.code)}: ${result.stderr.slice(-2000)}`).toBe(0);
      expect(JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}')).toEqual({
        initiallyAbsent: true,
        getMatches: true,
        defaultStoreMatches: true,
        secretServiceHolds: true,
        otherAccountAbsent: true,
        overwriteMatches: true,
        secretServiceHoldsReplacement: true,
        deleted: true,
        deletedAgain: false,
        absentAfterDelete: true,
        secretServiceEmpty: true,
      });
    },
  );
});
