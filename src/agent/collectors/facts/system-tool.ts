/**
 * Where a Linux collector finds a system tool: in the system's own folders, never through the user's PATH.
 * An ordinary user's PATH often lacks /usr/sbin (where nft and iptables live), which would make an installed
 * firewall look absent; and a program planted earlier on PATH must not answer a posture question.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const SYSTEM_FOLDERS = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The tool's absolute path; one that does not exist when the tool is not installed (running it fails ENOENT). */
export function systemTool(name: string, exists: (path: string) => boolean = existsSync): string {
  const paths = SYSTEM_FOLDERS.map((folder) => join(folder, name));
  return paths.find(exists) ?? paths[0]!;
}
