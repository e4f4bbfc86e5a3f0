/**
 * The tray, menu, notification, power, dialog and utility-process parts of the fake `electron` module
 * (test/fakes/electron.ts re-exports them): each records what main did with it.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

export class FakeNativeImage {
  constructor(readonly buffer: Buffer) {}
  isEmpty = () => this.buffer.length === 0;
  setTemplateImage = vi.fn();
}
export const nativeImage = {
  createFromBuffer: vi.fn((buffer: Buffer) => new FakeNativeImage(buffer)),
  createEmpty: vi.fn(() => new FakeNativeImage(Buffer.alloc(0))),
};

export interface FakeMenuItem {
  label?: string;
  type?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
  submenu?: FakeMenuItem[];
}
export class Menu {
  static buildFromTemplate = vi.fn((template: FakeMenuItem[]) => new Menu(template));
  constructor(readonly items: FakeMenuItem[]) {}
}

export class Tray extends EventEmitter {
  static all: Tray[] = [];
  image: unknown;
  tooltip = '';
  menu: Menu | null = null;
  constructor(image: unknown) {
    super();
    this.image = image;
    Tray.all.push(this);
  }
  setImage = vi.fn((image: unknown) => void (this.image = image));
  setToolTip = vi.fn((tooltip: string) => void (this.tooltip = tooltip));
  setContextMenu = vi.fn((menu: Menu | null) => void (this.menu = menu));
  destroy = vi.fn();
}

export class Notification extends EventEmitter {
  static shown: Notification[] = [];
  static isSupported = vi.fn(() => true);
  constructor(readonly options: { title?: string; body?: string; [key: string]: unknown } = {}) {
    super();
  }
  show = vi.fn(() => void Notification.shown.push(this));
  close = vi.fn();
}

class FakePowerMonitor extends EventEmitter {
  getSystemIdleState = vi.fn(() => 'active');
}
export const powerMonitor = new FakePowerMonitor();

export const screen = {
  getPrimaryDisplay: vi.fn(() => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } })),
};

export const dialog = {
  showSaveDialog: vi.fn(async () => ({ canceled: true, filePath: undefined as string | undefined })),
};
export const clipboard = { writeText: vi.fn(), readText: vi.fn(() => '') };
export const shell = { openExternal: vi.fn(async () => undefined) };

/** A utility process whose messages the test answers (`respond`) and whose requests it reads (`received`). */
export class FakeUtilityProcess extends EventEmitter {
  readonly received: unknown[] = [];
  /** What the child answers to a message; set by the test. */
  respond: (message: unknown) => unknown = () => undefined;
  constructor(
    readonly modulePath: string,
    readonly options: Record<string, unknown>,
  ) {
    super();
  }
  postMessage = vi.fn((message: unknown) => {
    this.received.push(message);
    const reply = this.respond(message);
    if (reply !== undefined) setImmediate(() => this.emit('message', reply));
  });
  kill = vi.fn(() => {
    setImmediate(() => this.emit('exit', 0));
    return true;
  });
}

export const utilityProcess = {
  forked: [] as FakeUtilityProcess[],
  /** Set by a test before the code under test forks. */
  respond: (_message: unknown): unknown => undefined,
  fork: vi.fn((modulePath: string, _args: string[] = [], options: Record<string, unknown> = {}) => {
    const child = new FakeUtilityProcess(modulePath, options);
    child.respond = utilityProcess.respond;
    utilityProcess.forked.push(child);
    return child;
  }),
};
