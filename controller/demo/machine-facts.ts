/**
 * Facts about this machine for the demo's posture checks, so that on a fresh install most demo services
 * pass and the user sees how each check type behaves. Gathered here with plain Node calls: the controller
 * may not import the agent's collectors (an ESLint rule keeps `controller/` off `src/agent/`), and the demo
 * only needs approximations.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, realpathSync } from 'node:fs';
import os from 'node:os';
import { pipeline } from 'node:stream/promises';

export interface MachineFacts {
  /** OpenZiti osType: Linux, Windows or macOS */
  osType: string;
  /** `>=MAJOR.MINOR.0` of what the agent will report for this OS */
  osRange: string;
  macAddresses: string[];
  /** A binary that runs while the demo runs (this Node or Electron process), with its sha256 */
  processPath: string;
  processHash: string;
}

const OS_TYPES: Partial<Record<NodeJS.Platform, string>> = {
  linux: 'Linux',
  win32: 'Windows',
  darwin: 'macOS',
};

/** The version the agent reports: kernel release on Linux, 10.0.<build> on Windows, the product version on macOS. */
function reportedVersion(platform: NodeJS.Platform): string {
  if (platform !== 'darwin') return os.release();
  try {
    return execFileSync('sw_vers', ['-productVersion'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

export async function machineFacts(platform: NodeJS.Platform = process.platform): Promise<MachineFacts> {
  const [major = '0', minor = '0'] = reportedVersion(platform).split('.');
  const macAddresses = [
    ...new Set(
      Object.values(os.networkInterfaces())
        .flat()
        .filter((i) => i && !i.internal && i.mac !== '00:00:00:00:00:00')
        .map((i) => i!.mac.toLowerCase()),
    ),
  ];
  const processPath = realpathSync(process.execPath);
  return {
    osType: OS_TYPES[platform] ?? 'Linux',
    osRange: `>=${Number.parseInt(major, 10) || 0}.${Number.parseInt(minor, 10) || 0}.0`,
    macAddresses,
    processPath,
    processHash: await sha256(processPath),
  };
}
