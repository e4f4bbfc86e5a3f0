/**
 * Linux: the desktop's own screen lock settings, read as the signed-in user (the agent of the session, not
 * the system service, whose settings are root's). GNOME and the desktops built on its schemas through
 * `gsettings` (dconf, read from the user's database without privileges); KDE Plasma from kscreenlockerrc.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScreenLockFact } from '../../../../api/posture-types/index.js';
import type { FactEnvironment } from '../fact-environment.js';
import { idleMinutesOf } from '../fact-environment.js';
import { systemTool } from '../system-tool.js';

/** KDE's defaults when kscreenlockerrc does not set them: lock automatically after 5 minutes. */
const KDE_DEFAULT_TIMEOUT_MINUTES = 5;

/** `true`, `uint32 300`: gsettings prints GVariant text. */
function gvariantNumber(text: string): number | undefined {
  const m = /^(?:u?int\d+\s+)?(\d+)$/.exec(text.trim());
  return m ? Number(m[1]) : undefined;
}

/**
 * GNOME: the screen blanks after `idle-delay` seconds (0: never) and locks `lock-delay` seconds later when
 * `lock-enabled` is true.
 */
export function gnomeScreenLock(lockEnabled: string, idleDelay: string, lockDelay: string): ScreenLockFact {
  const enabled = lockEnabled.trim();
  const idle = gvariantNumber(idleDelay);
  const delay = gvariantNumber(lockDelay) ?? 0;
  if ((enabled !== 'true' && enabled !== 'false') || idle === undefined)
    return {
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: `unexpected gsettings output: ${`${enabled} ${idleDelay.trim()}`.slice(0, 120)}`,
    };
  if (enabled === 'false' || idle === 0) return { lockEnabled: false, idleMinutes: null };
  return { lockEnabled: true, idleMinutes: idleMinutesOf(idle + delay) };
}

/** KDE: `[Daemon]` Autolock (default true) after Timeout minutes (default 5), LockGrace seconds later. */
export function kdeScreenLock(kscreenlockerrc: string): ScreenLockFact {
  const values = new Map<string, string>();
  let inDaemon = false;
  for (const raw of kscreenlockerrc.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) inDaemon = line === '[Daemon]';
    else if (inDaemon && line.includes('=')) {
      const at = line.indexOf('=');
      values.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
    }
  }
  const autolock = (values.get('Autolock') ?? 'true').toLowerCase() !== 'false';
  const timeout = Number(values.get('Timeout') ?? KDE_DEFAULT_TIMEOUT_MINUTES);
  const grace = Number(values.get('LockGrace') ?? 5);
  if (!autolock || !(timeout > 0)) return { lockEnabled: false, idleMinutes: null };
  return { lockEnabled: true, idleMinutes: idleMinutesOf(timeout * 60 + (grace > 0 ? grace : 0)) };
}

async function readGnome(env: FactEnvironment): Promise<ScreenLockFact | undefined> {
  const gsettings = systemTool('gsettings');
  const get = async (schema: string, key: string) => {
    const result = await env.run(gsettings, ['get', schema, key]).catch(() => undefined);
    return result?.code === 0 ? result.stdout : undefined;
  };
  const [lockEnabled, idleDelay, lockDelay] = await Promise.all([
    get('org.gnome.desktop.screensaver', 'lock-enabled'),
    get('org.gnome.desktop.session', 'idle-delay'),
    get('org.gnome.desktop.screensaver', 'lock-delay'),
  ]);
  // No gsettings, or no GNOME schemas: not a GNOME desktop.
  if (lockEnabled === undefined || idleDelay === undefined) return undefined;
  return gnomeScreenLock(lockEnabled, idleDelay, lockDelay ?? '0');
}

async function readKde(env: FactEnvironment): Promise<ScreenLockFact | undefined> {
  const config = env.env.XDG_CONFIG_HOME || join(env.home, '.config');
  try {
    return kdeScreenLock(await readFile(join(config, 'kscreenlockerrc'), 'utf8'));
  } catch {
    return undefined;
  }
}

export async function collectLinuxScreenLock(env: FactEnvironment): Promise<ScreenLockFact> {
  // Root (the system service) would read root's own settings, or GNOME's defaults (locked after 5 minutes):
  // an answer about nobody's screen, which could pass a check.
  if (env.uid === 0)
    return {
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: "the screen lock is read by the signed-in user's Postern, not by the system service",
    };
  const desktops = (env.env.XDG_CURRENT_DESKTOP ?? '').toLowerCase().split(':');
  const isKde = desktops.includes('kde');
  if (isKde) {
    // A Plasma user who never opened the screen lock settings has no file: KDE's defaults apply.
    return (await readKde(env)) ?? kdeScreenLock('');
  }
  const fact = (await readGnome(env)) ?? (await readKde(env));
  return (
    fact ?? {
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: `no GNOME or KDE screen lock settings found (desktop: ${env.env.XDG_CURRENT_DESKTOP || 'none'})`,
    }
  );
}
