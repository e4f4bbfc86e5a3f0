/**
 * npm's `pretest`: makes sure the Debian packages the suites use are on this machine before they run.
 * Silent when they are; as root with apt-get it installs the missing ones; otherwise it prints one line
 * saying what to install and fails, so npm does not start the tests. POSTERN_SKIP_TEST_PREREQUISITES=1
 * skips the check, for machines that provide these some other way.
 */
import { spawnSync } from 'node:child_process';
import { findCommand } from './find-command.js';
import { SKIP_VARIABLE, planTestPrerequisites } from './test-prerequisites-plan.js';
import { missingPrerequisites } from './test-prerequisites-probe.js';

function aptGet(aptGetPath: string, args: string[]): string | undefined {
  const result = spawnSync(aptGetPath, args, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    // apt's stdout is a few lines per package (hundreds for Chromium); its errors arrive on stderr.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.error) return `apt-get ${args[0]} could not start: ${result.error.message}`;
  if (result.status !== 0) return `apt-get ${args[0]} failed (${result.signal ?? `exit ${result.status}`})`;
  return undefined;
}

function install(aptGetPath: string, packages: string[]): number {
  const failure =
    aptGet(aptGetPath, ['update', '-qq']) ??
    aptGet(aptGetPath, ['install', '-y', '-qq', '--no-install-recommends', ...packages]);
  const stillMissing = failure ? [] : missingPrerequisites().map((p) => p.package);
  if (!failure && stillMissing.length === 0) return 0;
  const problem = failure ?? `still missing after apt-get install: ${stillMissing.join(' ')}`;
  console.error(`test prerequisites: ${problem}; the tests need: apt-get install -y ${packages.join(' ')}`);
  return 1;
}

function main(): number {
  if (process.env[SKIP_VARIABLE] === '1') return 0;
  const aptGetPath = findCommand('apt-get');
  const plan = planTestPrerequisites({
    missing: missingPrerequisites(),
    // No getuid on Windows, and no root there either.
    isRoot: process.getuid?.() === 0,
    hasAptGet: aptGetPath !== undefined,
  });
  switch (plan.action) {
    case 'none':
      return 0;
    case 'report':
      console.error(plan.message);
      return 1;
    case 'install':
      console.log(plan.announcement);
      return install(aptGetPath!, plan.packages);
  }
}

process.exitCode = main();
