/**
 * macOS disk encryption: FileVault's state from `fdesetup status`, which any user may run. FileVault
 * encrypts the Data volume of the internal disk (the System volume is sealed and holds no user data), so it
 * answers for every fixed volume too; external disks are removable media, out of scope as on the other systems.
 */
import type { DiskEncryptionFact } from '../../../../api/posture-types/index.js';
import type { FactEnvironment } from '../fact-environment.js';

const FDESETUP = '/usr/bin/fdesetup';

/**
 * `FileVault is On.` / `FileVault is Off.`, possibly followed by `Encryption in progress: ...` (not yet
 * protecting everything: not encrypted) or `Decryption in progress: ...` (being turned off: not encrypted).
 */
export function parseFdesetupStatus(stdout: string): DiskEncryptionFact {
  const text = stdout.trim();
  const state = /FileVault is (On|Off)\b/i.exec(text)?.[1]?.toLowerCase();
  if (!state)
    return {
      encrypted: null,
      unknownReason: `unexpected fdesetup output: ${text.slice(0, 120) || '(empty)'}`,
    };
  const inProgress = /(Encryption|Decryption) in progress/i.test(text);
  const encrypted = state === 'on' && !inProgress;
  return { encrypted, allVolumesEncrypted: encrypted };
}

export async function collectMacosDiskEncryption(env: FactEnvironment): Promise<DiskEncryptionFact> {
  const result = await env.run(FDESETUP, ['status']);
  if (result.code !== 0)
    return {
      encrypted: null,
      unknownReason: `fdesetup status failed: ${result.stderr.trim().slice(0, 200)}`,
    };
  return parseFdesetupStatus(result.stdout);
}
