/**
 * What a fact collector may read from: the command runner (recorded outputs in tests) and, on Linux, the
 * roots of the files it reads. One object for every collector, so the registry can call each the same way.
 */
import { homedir } from 'node:os';
import type { CommandRunner } from '../command-runner.js';
import { createExecFileRunner } from '../command-runner.js';
import { powershellPath } from '../windows-scripts.js';

export interface FactEnvironment {
  run: CommandRunner;
  /** Windows: the PowerShell to run (an absolute path) */
  powershell: string;
  /** Linux: the proc filesystem (mountinfo) */
  procRoot: string;
  /** Linux: sysfs (the block device tree) */
  sysRoot: string;
  /** Linux: /etc (ufw's configuration) */
  etcRoot: string;
  /** Linux: the mount point of the system volume; a test points it at a volume it mounted */
  rootMount: string;
  /** the user's home (KDE's kscreenlockerrc) */
  home: string;
  /** the agent's environment (XDG_CONFIG_HOME, XDG_CURRENT_DESKTOP) */
  env: NodeJS.ProcessEnv;
  /** the agent's user id (undefined on Windows): root's desktop settings are not the user's */
  uid: number | undefined;
}

export function factEnvironment(overrides: Partial<FactEnvironment> = {}): FactEnvironment {
  return {
    // Short: a fact that hangs is unknown, not a stalled report (the facts are cached, so rarely re-read).
    run: createExecFileRunner({ timeoutMs: 10_000 }),
    powershell: powershellPath(),
    procRoot: '/proc',
    sysRoot: '/sys',
    etcRoot: '/etc',
    rootMount: '/',
    home: homedir(),
    env: process.env,
    uid: process.getuid?.(),
    ...overrides,
  };
}

/** Seconds of idle before the password is asked, as the whole minutes a check compares (5 min 5 s is 5). */
export function idleMinutesOf(seconds: number): number {
  return Math.round(seconds / 60);
}
