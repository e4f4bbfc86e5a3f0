/**
 * CPU seconds a set of server processes used, from /proc/<pid>/stat (utime + stime, in clock ticks): the
 * controllers, and a PostgreSQL server with its backends. A backend that exited meanwhile is not lost: the
 * postmaster reaps it, so its time moves into the postmaster's cutime + cstime, which are counted too.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Linux's USER_HZ: 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

interface Stat {
  ppid: number;
  /** utime + stime */
  own: number;
  /** cutime + cstime: reaped children's */
  children: number;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited
  }
  // The command name is in parentheses and may hold spaces: fields count from the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, utime..cstime fields 14..17.
  const n = (field: number) => Number(fields[field - 3]);
  return { ppid: n(4), own: n(14) + n(15), children: n(16) + n(17) };
}

/** Ticks used so far by `pids` and, for each of `parents`, by it, its live children and its reaped ones. */
function ticks(pids: readonly number[], parents: readonly number[]): number {
  let total = 0;
  for (const pid of pids) total += readStat(pid)?.own ?? 0;
  for (const parent of parents) {
    const stat = readStat(parent);
    if (stat) total += stat.own + stat.children;
  }
  if (parents.length > 0)
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) continue;
      const stat = readStat(pid);
      if (stat && parents.includes(stat.ppid)) total += stat.own;
    }
  return total;
}

/** Starts counting; the returned function gives the CPU seconds used since. */
export function cpuMeter(pids: readonly number[], parents: readonly number[] = []): () => number {
  const start = ticks(pids, parents);
  return () => (ticks(pids, parents) - start) / TICKS_PER_SECOND;
}
