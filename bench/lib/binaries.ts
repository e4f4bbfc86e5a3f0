/**
 * The binaries the agent benches query: first the executables of processes running now (what a PROCESS
 * check typically names), then regular files from /usr/bin in name order, to make up the count. Real files
 * of ordinary sizes, so hashing them measures what an agent would do.
 */
import { accessSync, constants, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

function runningExecutables(): string[] {
  const out: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const target = readlinkSync(`/proc/${pid}/exe`);
      if (target.startsWith('/') && !target.endsWith(' (deleted)')) out.push(target);
    } catch {
      // kernel threads and other users' processes have no readable exe
    }
  }
  return out;
}

function usable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export interface Binaries {
  paths: string[];
  totalBytes: number;
}

export function queriedBinaries(count: number): Binaries {
  const chosen = new Set<string>();
  for (const path of runningExecutables()) if (usable(path)) chosen.add(path);
  const usrBin = readdirSync('/usr/bin')
    .sort()
    .map((n) => join('/usr/bin', n));
  for (const candidate of usrBin) {
    if (chosen.size >= count) break;
    try {
      const real = realpathSync(candidate);
      if (usable(real)) chosen.add(real);
    } catch {
      // dangling symlink
    }
  }
  const paths = [...chosen].slice(0, count);
  return { paths, totalBytes: paths.reduce((sum, p) => sum + statSync(p).size, 0) };
}
