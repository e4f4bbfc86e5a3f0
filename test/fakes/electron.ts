/**
 * A fake `electron` module for unit tests of desktop/main/ (Electron Fiddle's tests/mocks/electron.ts idea):
 * just enough of each API main touches, built on EventEmitter and vi.fn(), recording what main did so tests
 * can assert on it. Use with `vi.mock('electron', () => import('../../fakes/electron.js'))` and call
 * `resetFakeElectron()` in `beforeEach`.
 */
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { vi } from 'vitest';
import {
  clipboard,
  dialog,
  Menu,
  nativeImage,
  Notification,
  powerMonitor,
  screen,
  shell,
  Tray,
  utilityProcess,
} from '../helpers/desktop-fake-electron-shell.js';

export * from '../helpers/desktop-fake-electron-shell.js';

/** An Electron event whose `preventDefault` is observable. */
export function fakeEvent<T extends object>(extra: T = {} as T) {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
    ...extra,
  };
}

export class FakeWebFrameMain {
  constructor(
    public url: string,
    public parent: FakeWebFrameMain | null = null,
  ) {}
  get top(): FakeWebFrameMain {
    return this.parent ? this.parent.top : this;
  }
}

let nextId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextId++;
  readonly mainFrame = new FakeWebFrameMain('');
  readonly sent: [string, unknown][] = [];
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  destroyed = false;
  send = vi.fn((channel: string, value: unknown) => void this.sent.push([channel, value]));
  setWindowOpenHandler = vi.fn((handler: (details: { url: string }) => { action: string }) => {
    this.windowOpenHandler = handler;
  });
  loadURL = vi.fn(async (url: string) => {
    this.mainFrame.url = url;
    this.emit('did-finish-load');
  });
  getURL = () => this.mainFrame.url;
  isDestroyed = () => this.destroyed;
  focus = vi.fn();
  /** Test helper: what main's `will-navigate` listeners decide about a navigation. */
  tryNavigate(url: string): { prevented: boolean } {
    const event = fakeEvent({ url });
    this.emit('will-navigate', event, url);
    return { prevented: event.defaultPrevented };
  }
  sentOn(channel: string): unknown[] {
    return this.sent.filter(([c]) => c === channel).map(([, v]) => v);
  }
}

export class BrowserWindow extends EventEmitter {
  static all: BrowserWindow[] = [];
  static getAllWindows = () => BrowserWindow.all.filter((w) => !w.destroyed);
  static fromWebContents = (wc: unknown) => BrowserWindow.all.find((w) => w.webContents === wc) ?? null;
  readonly webContents = new FakeWebContents();
  visible = false;
  focused = false;
  destroyed = false;
  alwaysOnTop: boolean;
  constructor(readonly options: Record<string, unknown> = {}) {
    super();
    this.alwaysOnTop = options.alwaysOnTop === true;
    BrowserWindow.all.push(this);
    // Electron emits this for every new window's contents; main hardens them there.
    app.emit('web-contents-created', fakeEvent(), this.webContents);
  }
  loadURL = vi.fn(async (url: string) => {
    await this.webContents.loadURL(url);
    this.emit('ready-to-show');
  });
  show = vi.fn(() => {
    this.visible = true;
    this.focused = true;
    this.emit('show');
  });
  hide = vi.fn(() => {
    this.visible = false;
    this.focused = false;
  });
  focus = vi.fn(() => {
    this.focused = true;
  });
  restore = vi.fn();
  close = vi.fn(() => {
    const event = fakeEvent();
    this.emit('close', event);
    if (!event.defaultPrevented) this.destroy();
  });
  destroy = vi.fn(() => {
    if (this.destroyed) return;
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.emit('closed');
  });
  setAlwaysOnTop = vi.fn((flag: boolean, _level?: string) => {
    this.alwaysOnTop = flag;
  });
  isAlwaysOnTop = () => this.alwaysOnTop;
  isDestroyed = () => this.destroyed;
  isVisible = () => this.visible;
  isFocused = () => this.focused;
  isMinimized = () => false;
  setSize = vi.fn();
  center = vi.fn();
}

class FakeIpcMain extends EventEmitter {
  readonly handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  handle = vi.fn((channel: string, handler: (event: unknown, ...args: unknown[]) => unknown) => {
    if (this.handlers.has(channel))
      throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, handler);
  });
  removeHandler = vi.fn((channel: string) => void this.handlers.delete(channel));
  /** Test helper: invokes a channel as a renderer whose top frame shows `url` would. */
  async invokeFrom(url: string | null, channel: string, payload?: unknown): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    const senderFrame = url === null ? null : new FakeWebFrameMain(url);
    return handler({ senderFrame, sender: new FakeWebContents() }, payload);
  }
}
export const ipcMain = new FakeIpcMain();

class FakeIpcRenderer extends EventEmitter {
  invoke = vi.fn(async (_channel: string, _payload?: unknown): Promise<unknown> => undefined);
}
export const ipcRenderer = new FakeIpcRenderer();

export const contextBridge = {
  exposed: {} as Record<string, unknown>,
  exposeInMainWorld: vi.fn((key: string, api: unknown) => void (contextBridge.exposed[key] = api)),
};

type BeforeRequestListener = (
  details: { url: string },
  callback: (response: { cancel: boolean }) => void,
) => void;

export class FakeSession {
  permissionRequestHandler: ((...args: unknown[]) => void) | null = null;
  permissionCheckHandler: ((...args: unknown[]) => boolean) | null = null;
  beforeRequest: { filter: unknown; listener: BeforeRequestListener } | null = null;
  setPermissionRequestHandler = vi.fn(
    (h: (...args: unknown[]) => void) => void (this.permissionRequestHandler = h),
  );
  setPermissionCheckHandler = vi.fn(
    (h: (...args: unknown[]) => boolean) => void (this.permissionCheckHandler = h),
  );
  setDevicePermissionHandler = vi.fn();
  setSpellCheckerEnabled = vi.fn();
  webRequest = {
    onBeforeRequest: vi.fn((filter: unknown, listener: BeforeRequestListener) => {
      this.beforeRequest = { filter, listener };
    }),
  };
  protocol = { handle: vi.fn(), unhandle: vi.fn() };
  /** Test helper: asks the permission handler, resolving what it granted. */
  requestPermission(permission: string): Promise<boolean> {
    return new Promise((resolve) =>
      this.permissionRequestHandler?.(new FakeWebContents(), permission, resolve, {}),
    );
  }
}
export const session = { defaultSession: new FakeSession() };

export const protocol = {
  registerSchemesAsPrivileged: vi.fn(),
  handle: vi.fn(),
};

class FakeApp extends EventEmitter {
  isPackaged = false;
  loginItem = { openAtLogin: false };
  name = 'Postern';
  getPath = vi.fn((name: string) => join(tmpdir(), 'postern-fake-electron', name));
  getVersion = vi.fn(() => '0.1.0');
  getAppPath = vi.fn(() => process.cwd());
  requestSingleInstanceLock = vi.fn(() => true);
  setLoginItemSettings = vi.fn(
    (settings: { openAtLogin: boolean }) => void (this.loginItem = { ...settings }),
  );
  getLoginItemSettings = vi.fn(() => ({ ...this.loginItem }));
  setAppUserModelId = vi.fn();
  enableSandbox = vi.fn();
  whenReady = vi.fn(async () => undefined);
  quit = vi.fn();
  exit = vi.fn();
  focus = vi.fn();
}
export const app = new FakeApp();

/** Forgets every window, handler, listener and recorded call between tests. */
export function resetFakeElectron(): void {
  BrowserWindow.all = [];
  Tray.all = [];
  Notification.shown = [];
  ipcMain.handlers.clear();
  for (const emitter of [ipcMain, ipcRenderer, powerMonitor, app]) emitter.removeAllListeners();
  contextBridge.exposed = {};
  app.isPackaged = false;
  app.loginItem = { openAtLogin: false };
  session.defaultSession = new FakeSession();
  utilityProcess.forked = [];
  utilityProcess.respond = () => undefined;
  vi.clearAllMocks();
}

export default {
  app,
  BrowserWindow,
  clipboard,
  contextBridge,
  dialog,
  ipcMain,
  ipcRenderer,
  Menu,
  nativeImage,
  Notification,
  powerMonitor,
  protocol,
  screen,
  session,
  shell,
  Tray,
  utilityProcess,
};
