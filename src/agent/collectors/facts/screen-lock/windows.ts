/**
 * Windows: what locks an idle session, read from the registry as the signed-in user (the agent of the session;
 * the system service would read SYSTEM's own settings). Two things lock it: the machine's inactivity limit
 * (Interactive logon: machine inactivity limit, `InactivityTimeoutSecs`), and a password-protected screen saver,
 * where Group Policy's values (HKCU\Software\Policies) win over the user's own (HKCU\Control Panel\Desktop).
 * The earliest of those is the idle time; with neither, the screen never locks by itself.
 */
import type { ScreenLockFact } from '../../../../api/posture-types/index.js';
import type { FactEnvironment } from '../fact-environment.js';
import { idleMinutesOf } from '../fact-environment.js';
import { powershellArgs } from '../../windows-scripts.js';
import { parsePowershellJson, powershellFailure } from '../powershell-json.js';

export const SCREEN_LOCK_SCRIPT = `
function Read-Values($path, $names) {
  $o = @{}
  $k = Get-ItemProperty -LiteralPath $path -ErrorAction SilentlyContinue
  if ($k) { foreach ($n in $names) { $v = $k.$n; if ($null -ne $v) { $o[$n] = [string]$v } } }
  $o
}
$saver = @('ScreenSaveActive', 'ScreenSaverIsSecure', 'ScreenSaveTimeOut', 'SCRNSAVE.EXE')
ConvertTo-Json -Compress -InputObject @{
  asSystem = [Security.Principal.WindowsIdentity]::GetCurrent().IsSystem
  policy = Read-Values 'HKCU:\\Software\\Policies\\Microsoft\\Windows\\Control Panel\\Desktop' $saver
  user = Read-Values 'HKCU:\\Control Panel\\Desktop' $saver
  machine = Read-Values 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Policies\\System' @('InactivityTimeoutSecs')
}`;

function values(data: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = data[key];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

export function parseScreenLockRegistry(stdout: string): ScreenLockFact {
  const data = parsePowershellJson(stdout, 'screen lock');
  // The service (LocalSystem) would read SYSTEM's own Control Panel settings: no user's screen.
  if (data.asSystem === true)
    return {
      lockEnabled: null,
      idleMinutes: null,
      unknownReason: "the screen lock is read by the signed-in user's Postern, not by the system service",
    };
  const policy = values(data, 'policy');
  const user = values(data, 'user');
  const effective = (name: string) => String(policy[name] ?? user[name] ?? '').trim();
  const lockAfter: number[] = [];
  const saverTimeout = Number(effective('ScreenSaveTimeOut'));
  if (
    effective('ScreenSaveActive') === '1' &&
    effective('ScreenSaverIsSecure') === '1' &&
    effective('SCRNSAVE.EXE') !== '' &&
    saverTimeout > 0
  )
    lockAfter.push(saverTimeout);
  const inactivity = Number(values(data, 'machine').InactivityTimeoutSecs ?? 0);
  if (inactivity > 0) lockAfter.push(inactivity);
  if (lockAfter.length === 0) return { lockEnabled: false, idleMinutes: null };
  return { lockEnabled: true, idleMinutes: idleMinutesOf(Math.min(...lockAfter)) };
}

export async function collectWindowsScreenLock(env: FactEnvironment): Promise<ScreenLockFact> {
  const result = await env.run(env.powershell, powershellArgs(SCREEN_LOCK_SCRIPT));
  if (result.code !== 0)
    return { lockEnabled: null, idleMinutes: null, unknownReason: powershellFailure(result, 'screen lock') };
  return parseScreenLockRegistry(result.stdout);
}
