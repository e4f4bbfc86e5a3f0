/**
 * The desktop shell's own settings (agent.json holds the agent's: controller and user), in the app's data
 * folder: whether to run the bundled controller, and whether to start at login, which the OS itself keeps
 * (login item or autostart entry) so the switch always shows the truth.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SettingsView } from '../ipc/views.js';
import type { StartAtLogin } from './start-at-login.js';

interface StoredSettings {
  useBundledController: boolean;
}

export class DesktopSettings {
  readonly path: string;
  private readonly defaults: StoredSettings;

  /** `useBundledControllerByDefault`: true for the demo; a packaged app runs it only when asked. */
  constructor(
    dataDir: string,
    private readonly startAtLogin: StartAtLogin,
    useBundledControllerByDefault = false,
  ) {
    this.path = join(dataDir, 'desktop.json');
    this.defaults = { useBundledController: useBundledControllerByDefault };
  }

  async load(): Promise<SettingsView> {
    return { ...(await this.stored()), startAtLogin: await this.startAtLogin.isEnabled() };
  }

  async update(changes: Partial<SettingsView>): Promise<SettingsView> {
    if (changes.startAtLogin !== undefined) await this.startAtLogin.setEnabled(changes.startAtLogin);
    if (changes.useBundledController !== undefined) {
      const next: StoredSettings = {
        ...(await this.stored()),
        useBundledController: changes.useBundledController,
      };
      await mkdir(dirname(this.path), { recursive: true });
      const temp = `${this.path}.${process.pid}.tmp`;
      await writeFile(temp, `${JSON.stringify(next, null, 2)}\n`);
      await rename(temp, this.path);
    }
    return this.load();
  }

  private async stored(): Promise<StoredSettings> {
    try {
      const raw = JSON.parse(await readFile(this.path, 'utf8')) as Partial<StoredSettings>;
      return {
        useBundledController:
          typeof raw.useBundledController === 'boolean'
            ? raw.useBundledController
            : this.defaults.useBundledController,
      };
    } catch {
      return { ...this.defaults };
    }
  }
}
