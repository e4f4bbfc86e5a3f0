/**
 * The security settings of desktop/main/security.ts hold (Electron's checklist): sandboxed, isolated renderers
 * without Node, a strict CSP equal to the one in desktop/renderer/index.html, navigation / new windows / webviews /
 * permissions / renderer network access all denied, and only the app's own pages trusted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../fakes/electron.js'));

const fake = await import('../../fakes/electron.js');
const security = await import('../../../desktop/main/security.js');
const { resolveAppFile } = await import('../../../desktop/main/app-protocol.js');
const { AppWindows } = await import('../../../desktop/main/windows.js');
const { createEvents } = await import('../../../desktop/ipc/bridge.js');

beforeEach(() => fake.resetFakeElectron());

describe('web preferences', () => {
  it('isolate, sandbox and strip Node from every window the app opens', () => {
    const windows = new AppWindows({
      preload: '/p.cjs',
      pageUrl: (r) => `postern://app/index.html#${r}`,
      events: createEvents(() => {}),
      quitting: () => false,
    });
    windows.showMain();
    windows.openPrompt();
    expect(fake.BrowserWindow.all).toHaveLength(2);
    for (const window of fake.BrowserWindow.all) {
      const prefs = window.options.webPreferences as Record<string, unknown>;
      expect(prefs).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        webviewTag: false,
        preload: '/p.cjs',
      });
      expect(prefs.enableBlinkFeatures).toBeUndefined();
    }
    const prompt = fake.BrowserWindow.all[1]!;
    expect(prompt.isAlwaysOnTop()).toBe(true);
    expect(prompt.webContents.getURL()).toBe('postern://app/index.html#/prompt');
  });

  it('turn DevTools off in a packaged app', () => {
    expect(security.secureWebPreferences('/p', true).devTools).toBe(false);
    expect(security.secureWebPreferences('/p', false).devTools).toBe(true);
  });
});

describe('content security policy', () => {
  const directives = new Map(
    security.CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
  );

  it('allows only the app itself, and data: images for the QR code', () => {
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('img-src')).toEqual(["'self'", 'data:']);
    expect(directives.get('connect-src')).toEqual(["'none'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(security.CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-|https?:|\*/);
  });

  it('is the same policy desktop/renderer/index.html declares', () => {
    const html = readFileSync(join(import.meta.dirname, '../../../desktop/renderer/index.html'), 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html);
    expect(meta?.[1]).toBe(security.CONTENT_SECURITY_POLICY);
  });
});

describe('web contents', () => {
  beforeEach(() => security.installSecurity(fake.app as never));

  it('sandboxes every renderer app-wide', () => {
    expect(fake.app.enableSandbox).toHaveBeenCalled();
  });

  it('denies navigation, redirects, new windows and webviews', () => {
    const { webContents } = new fake.BrowserWindow();
    expect(webContents.tryNavigate('https://evil.example/').prevented).toBe(true);
    expect(webContents.tryNavigate('postern://app/other.html').prevented).toBe(true);
    const redirect = fake.fakeEvent();
    webContents.emit('will-redirect', redirect);
    expect(redirect.defaultPrevented).toBe(true);
    const webview = fake.fakeEvent();
    webContents.emit('will-attach-webview', webview);
    expect(webview.defaultPrevented).toBe(true);
    expect(webContents.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
  });
});

describe('session', () => {
  it('denies every permission request and check', async () => {
    security.hardenSession(fake.session.defaultSession as never);
    const session = fake.session.defaultSession;
    for (const permission of [
      'notifications',
      'media',
      'geolocation',
      'clipboard-read',
      'clipboard-sanitized-write',
      'openExternal',
    ]) {
      expect(await session.requestPermission(permission)).toBe(false);
    }
    expect(session.permissionCheckHandler?.(null, 'media', 'postern://app', {})).toBe(false);
    expect(session.setDevicePermissionHandler).toHaveBeenCalled();
  });

  it('cancels every network request from the renderer, except the dev server while developing', () => {
    const decide = (url: string) => {
      let cancel: boolean | undefined;
      fake.session.defaultSession.beforeRequest!.listener({ url }, (response) => (cancel = response.cancel));
      return cancel;
    };
    security.hardenSession(fake.session.defaultSession as never);
    expect(decide('https://tracker.example/pixel.png')).toBe(true);
    expect(decide('http://127.0.0.1:1280/edge/client/v1/services')).toBe(true);
    expect(decide('file:///etc/passwd')).toBe(true);
    security.hardenSession(fake.session.defaultSession as never, 'http://localhost:5173');
    expect(decide('http://localhost:5173/src/main.tsx')).toBe(false);
    expect(decide('ws://localhost:5173/')).toBe(false);
    expect(decide('http://localhost:5174/')).toBe(true);
  });
});

describe('trusted pages', () => {
  it('trusts only the top frame of the app scheme (or the dev server when given)', () => {
    const top = (url: string) => ({ url, parent: null });
    expect(security.isTrustedSender(top('postern://app/index.html#/services'))).toBe(true);
    expect(security.isTrustedSender(top('postern://evil/index.html'))).toBe(false);
    expect(security.isTrustedSender(top('https://app/index.html'))).toBe(false);
    expect(security.isTrustedSender(top('file:///tmp/index.html'))).toBe(false);
    expect(security.isTrustedSender({ url: 'postern://app/index.html', parent: {} })).toBe(false);
    expect(security.isTrustedSender(null)).toBe(false);
    expect(security.isTrustedSender(top('http://localhost:5173/'))).toBe(false);
    expect(security.isTrustedSender(top('http://localhost:5173/'), 'http://localhost:5173')).toBe(true);
  });

  it('serves only files inside the renderer folder', () => {
    const root = '/app/out/renderer';
    expect(resolveAppFile('postern://app/index.html', root)).toBe('/app/out/renderer/index.html');
    expect(resolveAppFile('postern://app/', root)).toBe('/app/out/renderer/index.html');
    expect(resolveAppFile('postern://app/assets/a.js', root)).toBe('/app/out/renderer/assets/a.js');
    expect(resolveAppFile('postern://app/../../etc/passwd', root)).toBe('/app/out/renderer/etc/passwd');
    // The URL parser already resolves dot segments, encoded or not; decoded slashes could still escape.
    expect(resolveAppFile('postern://app/%2e%2e/%2e%2e/etc/passwd', root)).toBe(
      '/app/out/renderer/etc/passwd',
    );
    expect(resolveAppFile('postern://app/..%2f..%2fetc/passwd', root)).toBeNull();
    expect(resolveAppFile('postern://other/index.html', root)).toBeNull();
  });
});
