/**
 * The controller's data folder: private to its user whatever existed before (folder 0700, every file in it
 * 0600: the database and its WAL, the master key, the admin password), and held by one controller at a time.
 * Two controllers on one folder would each trust their own caches and timers and grant what policy forbids,
 * so the second refuses to start and names the first.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'controller.lock';

export class DataFolderInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `the data folder ${dataDir} is in use by another controller (pid ${holderPid}); stop it first, or give this one its own --data-dir`,
    );
  }
}

/** Creates the folder if needed and makes it and its files private (POSIX modes; Windows has ACLs instead). */
export function makePrivate(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  chmodSync(dataDir, 0o700);
  for (const entry of readdirSync(dataDir, { withFileTypes: true }))
    if (entry.isFile()) chmodSync(join(dataDir, entry.name), 0o600);
}

/** Tightens one file the controller just wrote (SQLite creates its files with the process umask). */
export function privateFile(path: string): void {
  if (process.platform !== 'win32' && existsSync(path)) chmodSync(path, 0o600);
}

/**
 * Takes the folder for this process; answers the release. A lock left by a process that no longer runs is
 * taken over (a crash must not keep the controller down).
 */
export function lockDataFolder(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        if (holderOf(path) === process.pid) rmSync(path, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = holderOf(path);
      if (holder !== undefined && isRunning(holder)) throw new DataFolderInUse(dataDir, holder);
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

function holderOf(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
