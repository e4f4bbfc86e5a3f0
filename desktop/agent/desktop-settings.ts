/**
 * The desktop shell's own settings (agent.json holds the agent's: controller and user), in the app's data
 * folder: whether to run the bundled controller, and whether to start at login, which the OS itself keeps
 * (login item or autostart entry) so the switch always shows the truth. Also what the app must remember
 * across restarts without the user setting it: when it last told them about each warned service.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SettingsView } from '../ipc/views.js';
import type { StartAtLogin } from './start-at-login.js';

interface StoredSettings {
  useBundledController: boolean;
  /** `service id@deadline` -> epoch ms of the last notification about it (warning-notices.ts) */
  warningNotices: Record<string, number>;
}

/** Only well-formed entries survive a hand-edited or damaged file. */
function noticeTimes(raw: unknown): Record<string, number> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  return Object.fromEntries(
    Object.entries(raw).filter(
      (e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]),
    ),
  );
}

export class DesktopSettings {
  readonly path: string;
  private readonly defaults: StoredSettings;
  /** Writes one after another, each over the file the previous one left. */
  private writing: Promise<unknown> = Promise.resolve();

  /** `useBundledControllerByDefault`: true for the demo; a packaged app runs it only when asked. */
  constructor(
    dataDir: string,
    private readonly startAtLogin: StartAtLogin,
    useBundledControllerByDefault = false,
  ) {
    this.path = join(dataDir, 'desktop.json');
    this.defaults = { useBundledController: useBundledControllerByDefault, warningNotices: {} };
  }

  async load(): Promise<SettingsView> {
    const { useBundledController } = await this.stored();
    return { useBundledController, startAtLogin: await this.startAtLogin.isEnabled() };
  }

  async update(changes: Partial<SettingsView>): Promise<SettingsView> {
    if (changes.startAtLogin !== undefined) await this.startAtLogin.setEnabled(changes.startAtLogin);
    const useBundledController = changes.useBundledController;
    if (useBundledController !== undefined)
      await this.change((stored) => ({ ...stored, useBundledController }));
    return this.load();
  }

  /** When the user was last told about each warned service (keys: `service id@deadline`). */
  async warningNoticeTimes(): Promise<Record<string, number>> {
    return (await this.stored()).warningNotices;
  }

  async saveWarningNoticeTimes(warningNotices: Record<string, number>): Promise<void> {
    await this.change((stored) => ({ ...stored, warningNotices }));
  }

  /** Read, change and replace the file atomically, one change at a time, keeping what it does not touch. */
  private change(edit: (stored: StoredSettings) => StoredSettings): Promise<void> {
    const next = this.writing.then(async () => {
      const changed = edit(await this.stored());
      await mkdir(dirname(this.path), { recursive: true });
      const temp = `${this.path}.${process.pid}.tmp`;
      await writeFile(temp, `${JSON.stringify(changed, null, 2)}\n`);
      await rename(temp, this.path);
    });
    this.writing = next.catch(() => undefined);
    return next;
  }

  private async stored(): Promise<StoredSettings> {
    try {
      const raw = JSON.parse(await readFile(this.path, 'utf8')) as Partial<StoredSettings>;
      return {
        useBundledController:
          typeof raw.useBundledController === 'boolean'
            ? raw.useBundledController
            : this.defaults.useBundledController,
        warningNotices: noticeTimes(raw.warningNotices),
      };
    } catch {
      return { ...this.defaults, warningNotices: {} };
    }
  }
}
