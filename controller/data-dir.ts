import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the controller keeps its data when no --data-dir is given: the user's per-OS data folder. */
export function defaultDataDir(platform: NodeJS.Platform = process.platform, env = process.env): string {
  if (platform === 'win32')
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Postern', 'controller');
  if (platform === 'darwin')
    return join(homedir(), 'Library', 'Application Support', 'Postern', 'controller');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'postern', 'controller');
}
