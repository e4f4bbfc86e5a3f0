/**
 * "Start at login", per OS behind one interface: Electron's login items on Windows and macOS, an XDG
 * autostart entry on Linux (where Electron's login item API does nothing). The app starts hidden in the
 * tray when launched this way (`--hidden`).
 */
import { mkdir, rm, writeFile, access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { app } from 'electron';
import type { StartAtLogin } from '../agent/start-at-login.js';

export type { StartAtLogin };

export const HIDDEN_FLAG = '--hidden';

class ElectronLoginItem implements StartAtLogin {
  async isEnabled(): Promise<boolean> {
    return app.getLoginItemSettings({ args: [HIDDEN_FLAG] }).openAtLogin;
  }

  async setEnabled(enabled: boolean): Promise<void> {
    app.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN_FLAG] });
  }
}

/** `~/.config/autostart/postern.desktop` (XDG Autostart spec). */
export class LinuxAutostart implements StartAtLogin {
  readonly file: string;

  constructor(
    private readonly executable: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.file = join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'autostart', 'postern.desktop');
  }

  async isEnabled(): Promise<boolean> {
    return access(this.file).then(
      () => true,
      () => false,
    );
  }

  async setEnabled(enabled: boolean): Promise<void> {
    if (!enabled) return rm(this.file, { force: true });
    await mkdir(dirname(this.file), { recursive: true });
    const exec = `"${this.executable.replace(/(["`$\\])/g, '\\$1')}" ${HIDDEN_FLAG}`;
    const entry = [
      '[Desktop Entry]',
      'Type=Application',
      'Name=Postern',
      `Exec=${exec}`,
      'X-GNOME-Autostart-enabled=true',
      '',
    ];
    await writeFile(this.file, entry.join('\n'), { mode: 0o644 });
  }
}

export function startAtLoginFor(platform: NodeJS.Platform = process.platform): StartAtLogin {
  // An AppImage runs from a temporary mount; APPIMAGE is the file to launch again.
  if (platform === 'linux') return new LinuxAutostart(process.env.APPIMAGE ?? process.execPath);
  return new ElectronLoginItem();
}
