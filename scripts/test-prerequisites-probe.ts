/**
 * Which test prerequisites this machine lacks: asked of dpkg where there is one, otherwise judged by
 * whether the commands the suites run can be found.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { TEST_PREREQUISITES, type Prerequisite } from './test-prerequisites-plan.js';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The command's path: itself when absolute, else the first executable of that name on PATH. */
export function findCommand(command: string, path = process.env.PATH ?? ''): string | undefined {
  if (isAbsolute(command)) return isExecutable(command) ? command : undefined;
  return path
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, command))
    .find(isExecutable);
}

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
  if (installed) return prerequisites.filter((p) => !installed.has(p.package));
  return prerequisites.filter((p) => !p.commands.every((command) => findCommand(command, path)));
}
