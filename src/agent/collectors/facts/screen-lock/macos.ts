/**
 * macOS: the screen locks when the screen saver starts or the display sleeps, after the password delay.
 * `sysadminctl -screenLock status` (macOS 13 and later, as the user) gives the delay; older releases keep it in
 * com.apple.screensaver's askForPassword/askForPasswordDelay. The idle time is the earlier of the screen
 * saver's (`idleTime`, per host, 20 minutes when never set) and the display sleep (`pmset -g`, minutes).
 */
import type { ScreenLockFact } from '../../../../api/posture-types/index.js';
import type { CommandResult } from '../../command-runner.js';
import type { FactEnvironment } from '../fact-environment.js';
import { idleMinutesOf } from '../fact-environment.js';

const SYSADMINCTL = '/usr/sbin/sysadminctl';
const DEFAULTS = '/usr/bin/defaults';
const PMSET = '/usr/bin/pmset';
/** The screen saver's start when the user never chose one (System Settings shows 20 minutes). */
const DEFAULT_SAVER_IDLE_SECONDS = 1200;

/** Seconds between the screen saver or display sleep and the lock; null when it never locks; undefined: unreadable. */
export function parseSysadminctlScreenLock(output: string): number | null | undefined {
  if (/screenLock is off/i.test(output)) return null;
  if (/screenLock is immediate/i.test(output)) return 0;
  const delay = /screenLock delay is (\d+) seconds?/i.exec(output);
  return delay ? Number(delay[1]) : undefined;
}

/** `pmset -g`'s ` displaysleep  10` line, in seconds; 0 when the display never sleeps. */
export function parsePmsetDisplaySleep(output: string): number | undefined {
  const m = /^\s*displaysleep\s+(\d+)/m.exec(output);
  return m ? Number(m[1]) * 60 : undefined;
}

function combined(result: CommandResult | undefined): string {
  return result ? `${result.stdout}\n${result.stderr}` : '';
}

async function lockDelay(env: FactEnvironment): Promise<number | null | undefined> {
  const run = (file: string, args: string[]) => env.run(file, args).catch(() => undefined);
  const modern = parseSysadminctlScreenLock(combined(await run(SYSADMINCTL, ['-screenLock', 'status'])));
  if (modern !== undefined) return modern;
  const [ask, delay] = await Promise.all([
    run(DEFAULTS, ['read', 'com.apple.screensaver', 'askForPassword']),
    run(DEFAULTS, ['read', 'com.apple.screensaver', 'askForPasswordDelay']),
  ]);
  if (ask?.code !== 0) return undefined;
  if (ask.stdout.trim() !== '1') return null;
  const seconds = delay?.code === 0 ? Number(delay.stdout.trim()) : 0;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

export async function collectMacosScreenLock(env: FactEnvironment): Promise<ScreenLockFact> {
  const run = (file: string, args: string[]) => env.run(file, args).catch(() => undefined);
  const [delay, saver, pmset] = await Promise.all([
    lockDelay(env),
    run(DEFAULTS, ['-currentHost', 'read', 'com.apple.screensaver', 'idleTime']),
    run(PMSET, ['-g']),
  ]);
  if (delay === undefined)
    return {
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: 'the screen lock setting could not be read',
    };
  if (delay === null) return { lockEnabled: false, idleMinutes: null };
  const saverIdle = saver?.code === 0 ? Number(saver.stdout.trim()) : DEFAULT_SAVER_IDLE_SECONDS;
  const displayIdle = pmset?.code === 0 ? parsePmsetDisplaySleep(pmset.stdout) : undefined;
  const idle = [saverIdle, displayIdle].filter(
    (s): s is number => s !== undefined && Number.isFinite(s) && s > 0,
  );
  if (idle.length === 0) return { lockEnabled: false, idleMinutes: null };
  return { lockEnabled: true, idleMinutes: idleMinutesOf(Math.min(...idle) + delay) };
}
