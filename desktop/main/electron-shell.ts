/**
 * The DesktopShell (what only the desktop can do) and the PromptSurface (where prompts appear) on top of
 * Electron: Save dialog, clipboard, the app's windows, notifications and the settings.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { app, clipboard, dialog, shell } from 'electron';
import type { PromptSurface } from '../agent/desktop-prompts.js';
import type { DesktopSettings } from '../agent/desktop-settings.js';
import type { DesktopShell } from './ipc-handlers.js';
import { showNotification } from './notifications.js';
import type { AppWindows } from './windows.js';

export function electronShell(windows: AppWindows, settings: DesktopSettings): DesktopShell {
  return {
    async saveTextFile(defaultName, text) {
      const options = {
        title: 'Save recovery codes',
        defaultPath: join(app.getPath('documents'), defaultName),
        filters: [{ name: 'Text', extensions: ['txt'] }],
      };
      const parent = windows.mainWindow;
      const result = parent
        ? await dialog.showSaveDialog(parent, options)
        : await dialog.showSaveDialog(options);
      if (result.canceled || !result.filePath) return false;
      // Recovery codes are as good as a password: readable by the user only.
      await writeFile(result.filePath, text, { mode: 0o600 });
      return true;
    },
    copyText: (text) => clipboard.writeText(text),
    openExternal: async (url) => {
      // Only web pages: a provider's URL comes from the controller and its discovery document.
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`not a web address: ${url}`);
      await shell.openExternal(url.toString());
    },
    showView: (view) => windows.showMain(view),
    settings: () => settings.load(),
    updateSettings: (changes) => settings.update(changes),
  };
}

export function electronPromptSurface(windows: AppWindows): PromptSurface {
  return {
    openPromptWindow: () => windows.openPrompt(),
    closePromptWindow: () => windows.closePrompt(),
    notify: (title, body, onClick) => showNotification(title, body, onClick),
    mainWindowVisible: () => windows.mainVisible(),
    showMainWindow: (view) => windows.showMain(view),
  };
}
