/**
 * CPU time and resident memory of another process, read from Linux's /proc the way `top` and `ps` do, so
 * a figure measures the process itself and not the bench that watches it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** USER_HZ (almost always 100); the unit of utime/stime in /proc/<pid>/stat. */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may contain spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are at offsets 11 and 12.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / clockTicks();
}

/** Resident set size in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}

/** CPU use of `pid` over `ms` as a percentage of one core. */
export async function cpuPercentOver(pid: number, ms: number): Promise<number> {
  const before = cpuSeconds(pid);
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const elapsed = (performance.now() - started) / 1000;
  return ((cpuSeconds(pid) - before) / elapsed) * 100;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
