/**
 * Windows disk encryption: BitLocker's protection status of the system drive and every fixed drive.
 * Get-BitLockerVolume answers only an administrator (the privileged service), so the script falls back to the
 * Shell's `System.Volume.BitLockerProtection` property, which any user may read (what Explorer shows as the
 * padlock). Protection "On" is encrypted; suspended, encrypting or decrypting volumes are not protected.
 */
import type { DiskEncryptionFact } from '../../../../api/posture-types/index.js';
import type { FactEnvironment } from '../fact-environment.js';
import { powershellArgs } from '../../windows-scripts.js';
import { parsePowershellJson, powershellFailure } from '../powershell-json.js';

export const BITLOCKER_SCRIPT = `
$r = @{ system = $env:SystemDrive; volumes = @() }
$fixed = @(Get-CimInstance -ClassName Win32_LogicalDisk -Filter 'DriveType = 3' | ForEach-Object { $_.DeviceID })
try {
  $r.volumes = @(Get-BitLockerVolume | Where-Object { $fixed -contains $_.MountPoint } | ForEach-Object { @{ mount = $_.MountPoint; status = [string]$_.ProtectionStatus } })
  $r.source = 'Get-BitLockerVolume'
} catch {
  $r.adminError = $_.Exception.Message
  $shell = New-Object -ComObject Shell.Application
  $r.volumes = @($fixed | ForEach-Object { @{ mount = $_; shell = $shell.NameSpace($_ + '\\').Self.ExtendedProperty('System.Volume.BitLockerProtection') } })
  $r.source = 'Shell'
}
ConvertTo-Json -InputObject $r -Depth 3 -Compress`;

/** The Shell's values: 1 protection on, 3 encrypting, 4 decrypting, 5 suspended, 6 on (locked), 2 off, 0 none. */
function shellProtected(value: unknown): boolean | undefined {
  if (typeof value !== 'number') return undefined;
  return value === 1 || value === 6;
}

interface Volume {
  mount: string;
  encrypted: boolean | undefined;
}

export function parseBitLockerOutput(stdout: string): DiskEncryptionFact {
  const data = parsePowershellJson(stdout, 'BitLocker');
  const system = typeof data.system === 'string' ? data.system.toUpperCase() : 'C:';
  const rawVolumes = Array.isArray(data.volumes) ? data.volumes : data.volumes ? [data.volumes] : [];
  const volumes: Volume[] = rawVolumes.map((v: Record<string, unknown>) => ({
    mount: String(v.mount ?? '').toUpperCase(),
    encrypted: typeof v.status === 'string' ? v.status === 'On' : shellProtected(v.shell),
  }));
  const systemVolume = volumes.find((v) => v.mount === system);
  if (systemVolume?.encrypted === undefined) {
    const missing = /not recognized/i.test(String(data.adminError ?? ''));
    const why = missing
      ? 'BitLocker is not installed on this Windows (no Get-BitLockerVolume), and the Shell does not say'
      : data.source === 'Shell'
        ? 'BitLocker status is not readable as this user (Get-BitLockerVolume needs the Postern service)'
        : 'BitLocker reported nothing for the system drive';
    return { encrypted: null, unknownReason: why };
  }
  const all = volumes.every((v) => v.encrypted === true);
  const anyUnknown = volumes.some((v) => v.encrypted === undefined);
  return {
    encrypted: systemVolume.encrypted,
    allVolumesEncrypted: anyUnknown && !volumes.some((v) => v.encrypted === false) ? null : all,
  };
}

export async function collectWindowsDiskEncryption(env: FactEnvironment): Promise<DiskEncryptionFact> {
  const result = await env.run(env.powershell, powershellArgs(BITLOCKER_SCRIPT));
  if (result.code !== 0) return { encrypted: null, unknownReason: powershellFailure(result, 'BitLocker') };
  return parseBitLockerOutput(result.stdout);
}
