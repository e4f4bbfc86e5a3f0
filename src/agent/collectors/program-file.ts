/**
 * Whether a path is a program, the only kind of file the agent reads for a posture check: Windows marks
 * programs by extension, POSIX systems by an execute bit on a regular file.
 */
import { stat } from 'node:fs/promises';

const WINDOWS_PROGRAM = /\.(exe|com)$/i;

export const isWindowsProgramName = (path: string) => WINDOWS_PROGRAM.test(path);

export async function isExecutableFile(path: string, platform = process.platform): Promise<boolean> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    return platform === 'win32' ? isWindowsProgramName(path) : (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}
