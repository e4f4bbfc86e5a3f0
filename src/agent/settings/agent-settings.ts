/**
 * The agent's non-secret settings in a JSON file in the user's config folder: which controller, which
 * user, how often to report, which CA to trust. Secrets (password, session token) never go here: they live
 * in the CredentialStore.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface AgentSettings {
  controllerUrl?: string;
  username?: string;
  reportIntervalSeconds?: number;
  /** PEM CA bundle for a controller with a private CA. */
  caFile?: string;
  /** SHA-256 fingerprint of a controller's self-signed certificate, pinned */
  controllerFingerprint?: string;
}

export const SETTINGS_FILE = 'agent.json';

/** Per-OS user config folder for Postern. */
export function defaultConfigDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Postern');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Postern');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'postern');
}

/** Keeps only known keys of the right type, so a hand-edited file cannot smuggle in anything else. */
function clean(raw: unknown): AgentSettings {
  if (typeof raw !== 'object' || raw === null) return {};
  const r = raw as Record<string, unknown>;
  const settings: AgentSettings = {};
  if (typeof r.controllerUrl === 'string') settings.controllerUrl = r.controllerUrl;
  if (typeof r.username === 'string') settings.username = r.username;
  if (typeof r.caFile === 'string') settings.caFile = r.caFile;
  if (typeof r.controllerFingerprint === 'string') settings.controllerFingerprint = r.controllerFingerprint;
  if (typeof r.reportIntervalSeconds === 'number' && r.reportIntervalSeconds >= 1) {
    settings.reportIntervalSeconds = r.reportIntervalSeconds;
  }
  return settings;
}

export class SettingsFile {
  readonly path: string;

  constructor(dir: string = defaultConfigDir()) {
    this.path = join(dir, SETTINGS_FILE);
  }

  /** The settings, or none when the file is missing or unreadable. */
  async load(): Promise<AgentSettings> {
    try {
      return clean(JSON.parse(await readFile(this.path, 'utf8')));
    } catch {
      return {};
    }
  }

  /** Merges and writes atomically (temp file + rename), so a crash never leaves half a file. */
  async update(changes: AgentSettings): Promise<AgentSettings> {
    const next = clean({ ...(await this.load()), ...changes });
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const temp = `${this.path}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, this.path);
    return next;
  }
}
