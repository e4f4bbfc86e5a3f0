/**
 * Which test prerequisites this machine lacks: asked of dpkg where there is one, otherwise judged by
 * whether the commands the suites run can be found. Software the suites find beyond PATH themselves
 * (PostgreSQL) is there when they would find it, whatever dpkg says.
 */
import { spawnSync } from 'node:child_process';
import { findCommand } from './find-command.js';
import { TEST_PREREQUISITES, type Prerequisite } from './test-prerequisites-plan.js';

/**
 * The packages dpkg reports as installed. `db:Status-Status` rather than the whole Status: a held package
 * ("hold ok installed") is installed too, and one removed with its configuration left ("config-files") is not.
 */
function installedPackages(dpkgQuery: string, packages: readonly string[]): Set<string> | undefined {
  const result = spawnSync(dpkgQuery, ['-W', '-f=${Package}\\t${db:Status-Status}\\n', ...packages], {
    encoding: 'utf8',
    // Packages dpkg has never heard of are reported on stderr ("no packages found matching"); they are simply missing.
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  if (result.error) return undefined;
  const installed = new Set<string>();
  for (const line of result.stdout.split('\n')) {
    const [name, status] = line.split('\t');
    if (name && status === 'installed') installed.add(name);
  }
  return installed;
}

/** Whether what the suites run from the prerequisite is on this machine, looked for where they will look. */
function found(p: Prerequisite, path: string): boolean {
  return p.isPresent ? p.isPresent(path) : p.commands.every((command) => findCommand(command, path));
}

export function missingPrerequisites(
  prerequisites: readonly Prerequisite[] = TEST_PREREQUISITES,
  path = process.env.PATH ?? '',
): Prerequisite[] {
  const dpkgQuery = findCommand('dpkg-query', path);
  const installed = dpkgQuery
    ? installedPackages(
        dpkgQuery,
        prerequisites.map((p) => p.package),
      )
    : undefined;
  if (installed) return prerequisites.filter((p) => !installed.has(p.package) && !p.isPresent?.(path));
  return prerequisites.filter((p) => !found(p, path));
}
