/**
 * The tray icon: its image and tooltip show the state at a glance (tray-state.ts), its menu opens the
 * app, the services, MFA, signs out and quits. It is redrawn whenever the session, the services or the
 * prompt change; the image only when the state does.
 */
import { Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';
import type { ViewName } from '../ipc/views.js';
import { drawTrayIcon } from './tray-icons.js';
import { modeLine } from '../ipc/mode-line.js';
import {
  serviceMenuLabel,
  trayState,
  trayTooltip,
  type TrayInput,
  type TrayState,
} from '../agent/tray-state.js';

export interface TrayActions {
  open(view?: ViewName): void;
  openPrompt(): void;
  signOut(): void;
  quit(): void;
}

/** What an empty Services submenu says: a sign-in waiting for a code is not "no services". */
function emptyServicesLabel(status: TrayInput['session']['status']): string {
  if (status === 'signed-in') return 'No services';
  if (status === 'needs-code') return 'MFA code needed to finish signing in';
  if (status === 'needs-enrollment') return 'Set up an authenticator app to finish signing in';
  return 'Sign in to see services';
}

/** The menu for a state; exported so a test can read it without clicking through a real tray. */
export function trayMenuTemplate(input: TrayInput, actions: TrayActions): MenuItemConstructorOptions[] {
  const signedIn = input.session.status === 'signed-in';
  const services: MenuItemConstructorOptions[] = input.services.length
    ? input.services.map((s) => ({
        label: serviceMenuLabel(s, input.timeZone),
        click: () => actions.open('services'),
      }))
    : [{ label: emptyServicesLabel(input.session.status), enabled: false }];
  return [
    { label: trayTooltip({ ...input, mode: undefined }), enabled: false },
    ...(input.mode ? [{ label: modeLine(input.mode), enabled: false }] : []),
    { type: 'separator' },
    ...(input.prompt ? [{ label: 'Enter authenticator code…', click: () => actions.openPrompt() }] : []),
    { label: 'Open Postern', click: () => actions.open() },
    { label: 'Services', submenu: services },
    { label: 'MFA…', enabled: signedIn, click: () => actions.open('mfa') },
    { type: 'separator' },
    { label: 'Sign out', enabled: signedIn, click: () => actions.signOut() },
    { label: 'Quit Postern', click: () => actions.quit() },
  ];
}

export class AppTray {
  private readonly tray: Tray;
  private state: TrayState | undefined;

  constructor(private readonly actions: TrayActions) {
    this.tray = new Tray(this.image('disconnected'));
    this.state = 'disconnected';
    // A left click opens the app where the desktop reports one (Windows, macOS); elsewhere the menu does.
    this.tray.on('click', () => actions.open());
  }

  /** The state now shown. */
  get current(): TrayState | undefined {
    return this.state;
  }

  update(input: TrayInput): void {
    const state = trayState(input);
    if (state !== this.state) this.tray.setImage(this.image(state));
    this.state = state;
    this.tray.setToolTip(trayTooltip(input));
    // Linux (StatusNotifierItem) only picks up a changed menu when it is set again.
    this.tray.setContextMenu(Menu.buildFromTemplate(trayMenuTemplate(input, this.actions)));
  }

  destroy(): void {
    this.tray.destroy();
  }

  private image(state: TrayState) {
    // Drawn at 32 px and marked 2x: a crisp 16-point icon on every platform.
    return nativeImage.createFromBuffer(drawTrayIcon(state, 32), { scaleFactor: 2 });
  }
}
