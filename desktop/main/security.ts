/**
 * Every security setting of the desktop shell, in one place, asserted by test/unit/main/security.test.ts
 * (Electron's security checklist): isolated, sandboxed renderers without Node; a strict CSP with no remote
 * content; no navigation, no new windows, no webviews; every permission request denied; and no network
 * access from the renderer at all (the agent's HTTP runs in main, with Node's http, not the session).
 */
// Types only: the Electron objects come in as arguments, so the UI tests can use the same rules in a browser.
import type { App, Session, WebContents, WebPreferences } from 'electron';

/** The renderer is served from a custom scheme rather than file:// (checklist item 18). */
export const APP_SCHEME = 'postern';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/**
 * The renderer's CSP, sent as a header by the app protocol and repeated in desktop/renderer/index.html (a test keeps
 * the two equal). `img-src data:` is for the enrollment QR code, which main renders to a data URL.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export function secureWebPreferences(preload: string, isPackaged: boolean): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
    devTools: !isPackaged,
  };
}

/**
 * The app's own pages: the custom scheme, or electron-vite's dev server while developing (never in a
 * packaged app, where `devServerUrl` is not passed).
 */
export function isAppUrl(url: string, devServerUrl?: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  // URL.origin is "null" for a custom scheme, so compare scheme and host.
  if (parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST) return true;
  if (!devServerUrl) return false;
  return parsed.origin === new URL(devServerUrl).origin;
}

/** The part of Electron's WebFrameMain the sender check reads. */
export interface SenderFrame {
  url: string;
  parent: unknown;
}

/** IPC is accepted only from the top frame of one of the app's own pages (checklist item 17). */
export function isTrustedSender(frame: SenderFrame | null | undefined, devServerUrl?: string): boolean {
  return !!frame && frame.parent === null && isAppUrl(frame.url, devServerUrl);
}

const NETWORK_URLS = ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*', 'file://*/*'];

/** While developing, the page and its hot-reload socket come from electron-vite's dev server. */
function isDevServerRequest(url: string, devServerUrl: string): boolean {
  try {
    const parsed = new URL(url);
    return ['http:', 'ws:'].includes(parsed.protocol) && parsed.host === new URL(devServerUrl).host;
  } catch {
    return false;
  }
}

/** Denies every permission and every network request the renderer could make. */
export function hardenSession(session: Session, devServerUrl?: string): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onBeforeRequest({ urls: NETWORK_URLS }, (details, callback) => {
    callback({ cancel: !(devServerUrl && isDevServerRequest(details.url, devServerUrl)) });
  });
}

/** No navigation away from the app, no new windows, no webviews (checklist items 12-14). */
export function hardenWebContents(contents: WebContents): void {
  contents.on('will-navigate', (event) => event.preventDefault());
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** Call before `app.whenReady()`: sandbox every renderer, and harden each web contents as it appears. */
export function installSecurity(app: App): void {
  app.enableSandbox();
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents));
}
