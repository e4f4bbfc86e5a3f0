/**
 * The built app in real Electron (`_electron`), where an Electron binary exists: the window loads the
 * renderer from the app scheme, sandboxed and isolated, with only the schema's API. Where the binary cannot
 * be had (this machine and CI reach no Electron download), the suite is skipped and says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
import { findElectron, type ElectronRuntime } from '../../scripts/electron-runtime.js';
import { ROOT } from './global-setup.js';

let runtime: ElectronRuntime;

test.beforeAll(async () => {
  runtime = await findElectron(60_000);
});

test('the packaged window is sandboxed, isolated and shows Postern', async () => {
  const why = runtime.available ? '' : runtime.reason;
  test.skip(!runtime.available, `Electron's runtime is not available here: ${why}`);
  const noDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
  test.skip(noDisplay, 'Electron needs a display: run under xvfb-run');
  if (!runtime.available) return;
  // A fresh profile: its own app data, keychain-less settings and bundled controller data.
  const home = mkdtempSync(join(tmpdir(), 'postern-electron-'));
  const app = await electron.launch({
    executablePath: runtime.path,
    args: [join(ROOT, 'out', 'main', 'index.js')],
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      POSTERN_ADMIN_PASSWORD: 'electron-suite-admin',
    },
  });
  try {
    const page = await app.firstWindow();
    await expect(page).toHaveTitle('Postern');
    expect(page.url()).toMatch(/^postern:\/\/app\/index\.html#\//);
    await expect(page.getByRole('heading', { name: /Sign in to Postern|Services/ })).toBeVisible();
    // No Node in the page (nodeIntegration off; the isolated preload's globals do not leak).
    const globals = await page.evaluate(() => [
      typeof (globalThis as { require?: unknown }).require,
      typeof (globalThis as { process?: unknown }).process,
    ]);
    expect(globals).toEqual(['undefined', 'undefined']);
    expect(await page.evaluate(() => Object.keys(window.postern).sort())).toEqual([
      'app',
      'mfa',
      'prompt',
      'services',
      'session',
      'settings',
    ]);
    // The renderer cannot reach the network, even the bundled controller.
    expect(
      await page.evaluate(() =>
        fetch('http://127.0.0.1:1/').then(
          () => 'reached',
          () => 'refused',
        ),
      ),
    ).toBe('refused');
  } finally {
    await app.close();
    rmSync(home, { recursive: true, force: true });
  }
});
