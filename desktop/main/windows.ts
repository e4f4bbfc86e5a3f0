/**
 * The app's two windows: the main window (sign-in, services, MFA), which hides instead of closing since
 * the app lives in the tray, and the small always-on-top TOTP prompt window. Both load the same renderer
 * with the hardened web preferences of security.ts; the hash picks the screen.
 */
import { app, BrowserWindow, screen, type NativeImage } from 'electron';
import type { IpcEvents } from '../ipc/bridge.js';
import type { ViewName } from '../ipc/views.js';
import { secureWebPreferences } from './security.js';

export interface AppWindowsOptions {
  preload: string;
  /** The renderer URL for a hash route (`#/prompt`). */
  pageUrl: (route: string) => string;
  events: IpcEvents;
  icon?: NativeImage;
  /** Whether the app is quitting (then the main window really closes). */
  quitting: () => boolean;
}

const PROMPT_SIZE = { width: 420, height: 340 };

export class AppWindows {
  private main: BrowserWindow | null = null;
  private prompt: BrowserWindow | null = null;

  constructor(private readonly options: AppWindowsOptions) {}

  get mainWindow(): BrowserWindow | null {
    return this.main;
  }

  get promptWindow(): BrowserWindow | null {
    return this.prompt;
  }

  /** Shows (creating if needed) the main window, on `view` when given. */
  showMain(view?: ViewName): void {
    if (this.main && !this.main.isDestroyed()) {
      if (this.main.isMinimized()) this.main.restore();
      this.main.show();
      this.main.focus();
      if (view) this.options.events.app.navigate(view);
      return;
    }
    const window = new BrowserWindow({
      width: 980,
      height: 720,
      minWidth: 640,
      minHeight: 520,
      show: false,
      title: 'Postern',
      icon: this.options.icon,
      autoHideMenuBar: true,
      webPreferences: secureWebPreferences(this.options.preload, app.isPackaged),
    });
    this.main = window;
    window.on('close', (event) => {
      if (this.options.quitting()) return;
      event.preventDefault();
      window.hide();
    });
    window.on('closed', () => {
      if (this.main === window) this.main = null;
    });
    window.once('ready-to-show', () => window.show());
    void window.loadURL(this.options.pageUrl(`/${view ?? 'services'}`));
  }

  mainVisible(): boolean {
    return !!this.main && !this.main.isDestroyed() && this.main.isVisible();
  }

  /** Opens or raises the TOTP window, top-right of the screen where the user is. */
  openPrompt(): void {
    if (this.prompt && !this.prompt.isDestroyed()) {
      this.prompt.show();
      this.prompt.focus();
      return;
    }
    const area = screen.getPrimaryDisplay().workArea;
    const window = new BrowserWindow({
      ...PROMPT_SIZE,
      x: area.x + area.width - PROMPT_SIZE.width - 24,
      y: area.y + 24,
      show: false,
      title: 'Postern: authenticator code',
      icon: this.options.icon,
      alwaysOnTop: true,
      resizable: false,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      autoHideMenuBar: true,
      webPreferences: secureWebPreferences(this.options.preload, app.isPackaged),
    });
    // Above full-screen apps too: the grace period runs whatever the user is doing.
    window.setAlwaysOnTop(true, 'screen-saver');
    this.prompt = window;
    window.on('closed', () => {
      if (this.prompt === window) this.prompt = null;
    });
    window.once('ready-to-show', () => {
      window.show();
      window.focus();
    });
    void window.loadURL(this.options.pageUrl('/prompt'));
  }

  closePrompt(): void {
    const window = this.prompt;
    this.prompt = null;
    if (window && !window.isDestroyed()) window.destroy();
  }

  destroyAll(): void {
    this.closePrompt();
    if (this.main && !this.main.isDestroyed()) this.main.destroy();
    this.main = null;
  }
}
