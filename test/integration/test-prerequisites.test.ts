/**
 * `npm test`'s prerequisite check run for real, as npm runs it, against a package database of the test's
 * own (see fake-debian-packages.ts): nothing on this machine is installed or removed. As an unprivileged
 * user it prints the one apt-get line and fails; as root it installs through apt-get.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SKIP_VARIABLE, TEST_PREREQUISITES } from '../../scripts/test-prerequisites-plan.js';
import { fakeDebian, hasRealDpkgQuery, type FakeDebian } from '../helpers/fake-debian-packages.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'test-prerequisites.ts');
const NOBODY = 65534;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The command prefix that drops root for the rest of the line, or why there is none here. */
function unprivilegedPrefix(): string[] | string {
  if (process.getuid?.() !== 0) return 'only root can switch to another user';
  for (const setpriv of ['/usr/bin/setpriv', '/bin/setpriv'])
    if (executable(setpriv))
      return [setpriv, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'];
  for (const runuser of ['/usr/sbin/runuser', '/sbin/runuser'])
    if (executable(runuser)) return [runuser, '-u', 'nobody', '--'];
  return 'neither setpriv nor runuser is installed';
}

const prefix = unprivilegedPrefix();
const noDpkg = hasRealDpkgQuery() ? '' : 'no dpkg-query here (not a Debian machine)';
const cannotDropRoot = typeof prefix === 'string' ? prefix : '';
const asRoot = process.getuid?.() === 0 ? '' : 'not running as root';

/** Every prerequisite installed except the ones given, which dpkg knows as removed. */
function debianWithout(...missing: string[]): Record<string, string> {
  return Object.fromEntries(
    TEST_PREREQUISITES.map((p) => [
      p.package,
      missing.includes(p.package) ? 'deinstall ok config-files' : 'install ok installed',
    ]),
  );
}

const fakes: FakeDebian[] = [];
afterEach(() => fakes.splice(0).forEach((f) => f.remove()));

function newDebian(...args: Parameters<typeof fakeDebian>): FakeDebian {
  const debian = fakeDebian(...args);
  fakes.push(debian);
  return debian;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The script as npm's pretest runs it, with the fake package tools first on PATH. */
function runCheck(
  debian: FakeDebian,
  options: { unprivileged?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The developer's own escape hatch must not decide these runs.
    [SKIP_VARIABLE]: undefined,
    ...options.env,
    PATH: `${debian.bin}${delimiter}${process.env.PATH ?? ''}`,
  };
  // `env` carries PATH across the user switch: runuser, unlike setpriv, may reset it.
  const command = [process.execPath, '--import', 'tsx', SCRIPT];
  const argv =
    options.unprivileged && Array.isArray(prefix)
      ? [...prefix, '/usr/bin/env', `PATH=${env.PATH}`, ...command]
      : command;
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(Boolean(noDpkg))(`the prerequisite check${noDpkg ? ` (skipped: ${noDpkg})` : ''}`, () => {
  it.skipIf(Boolean(cannotDropRoot))(
    `as an unprivileged user with a package missing: one line naming the apt-get command, exit 1, nothing installed${
      cannotDropRoot ? ` (skipped: ${cannotDropRoot})` : ''
    }`,
    async () => {
      const debian = newDebian({ packages: debianWithout('chromium', 'xvfb') });
      const run = await runCheck(debian, { unprivileged: true });
      expect(run).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'test prerequisites missing: chromium xvfb. Install them with: sudo apt-get install -y chromium xvfb\n',
      });
      expect(debian.aptGetCalls()).toEqual([]);
    },
  );

  it.skipIf(Boolean(cannotDropRoot))(
    `as an unprivileged user with everything installed: silent, exit 0${cannotDropRoot ? ` (skipped: ${cannotDropRoot})` : ''}`,
    async () => {
      const debian = newDebian({ packages: debianWithout() });
      expect(await runCheck(debian, { unprivileged: true })).toEqual({ code: 0, stdout: '', stderr: '' });
    },
  );

  it.skipIf(Boolean(asRoot))(
    `as root: announces the missing packages, installs them through apt-get, exit 0${asRoot ? ` (skipped: ${asRoot})` : ''}`,
    async () => {
      const debian = newDebian({ packages: debianWithout('xvfb', 'libsecret-tools') });
      const run = await runCheck(debian);
      expect(run).toEqual({
        code: 0,
        stdout: 'test prerequisites: installing xvfb libsecret-tools\n',
        stderr: '',
      });
      expect(debian.aptGetCalls()).toEqual([
        'update -qq',
        'install -y -qq --no-install-recommends xvfb libsecret-tools',
      ]);
      // Installed now, so the next run has nothing to do.
      expect(await runCheck(debian)).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(debian.aptGetCalls()).toHaveLength(2);
    },
  );

  it.skipIf(Boolean(asRoot))(
    `as root, when apt-get install fails: one clear line, exit 1${asRoot ? ` (skipped: ${asRoot})` : ''}`,
    async () => {
      const debian = newDebian({ packages: debianWithout('xvfb'), installExitCode: 100 });
      const run = await runCheck(debian);
      expect(run).toEqual({
        code: 1,
        stdout: 'test prerequisites: installing xvfb\n',
        stderr:
          'test prerequisites: apt-get install failed (exit 100); the tests need: apt-get install -y xvfb\n',
      });
    },
  );

  it(`${SKIP_VARIABLE}=1 skips the check: silent, exit 0, nothing installed`, async () => {
    const debian = newDebian({ packages: debianWithout('chromium') });
    const run = await runCheck(debian, { env: { [SKIP_VARIABLE]: '1' } });
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(debian.aptGetCalls()).toEqual([]);
  });
});
