/**
 * Where this machine's PostgreSQL server programs are. Debian's `postgresql` package keeps them in a folder
 * per major version, off PATH, so PATH alone is not enough. Shared by the test prerequisite check and the
 * test server helper, so both agree on what "installed" means.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isExecutable, pathFolders } from './find-command.js';

/** Debian's home for each installed major version: `<version>/bin`. */
export const DEBIAN_POSTGRES_VERSIONS = '/usr/lib/postgresql';

export interface PostgresBinaries {
  /** Creates a cluster (a data folder). */
  readonly initdb: string;
  /** The server itself, run in the foreground. */
  readonly postgres: string;
}

export interface PostgresLookup {
  /** PATH-style list searched first. */
  path?: string;
  /** The folder of per-version folders searched next. */
  versionsFolder?: string;
}

/** The two programs from one folder, so initdb and the server are always the same version. */
function binariesIn(folder: string): PostgresBinaries | undefined {
  const initdb = join(folder, 'initdb');
  const postgres = join(folder, 'postgres');
  return isExecutable(initdb) && isExecutable(postgres) ? { initdb, postgres } : undefined;
}

/** "9.6" and "16" as numbers to compare part by part; undefined for names that are not versions. */
function versionParts(name: string): number[] | undefined {
  return /^\d+(\.\d+)*$/.test(name) ? name.split('.').map(Number) : undefined;
}

function newerFirst(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const difference = (b[i] ?? 0) - (a[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The installed versions' names, newest first; none when the folder is not there. */
function installedVersions(versionsFolder: string): string[] {
  let names: string[];
  try {
    names = readdirSync(versionsFolder);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, parts: versionParts(name) }))
    .filter((v): v is { name: string; parts: number[] } => v.parts !== undefined)
    .sort((a, b) => newerFirst(a.parts, b.parts))
    .map((v) => v.name);
}

/** The first PATH folder holding both programs, else the newest installed version's; undefined when neither. */
export function findPostgresBinaries({
  path = process.env.PATH ?? '',
  versionsFolder = DEBIAN_POSTGRES_VERSIONS,
}: PostgresLookup = {}): PostgresBinaries | undefined {
  for (const folder of pathFolders(path)) {
    const found = binariesIn(folder);
    if (found) return found;
  }
  for (const version of installedVersions(versionsFolder)) {
    const found = binariesIn(join(versionsFolder, version, 'bin'));
    if (found) return found;
  }
  return undefined;
}
