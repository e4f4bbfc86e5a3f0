/**
 * Electron entry (built to out/main/index.js): security before anything else, one instance only, then the
 * DesktopApp once Electron is ready. Closing windows keeps the app in the tray; Quit stops the agent and
 * the bundled controller before exiting (and then removes the demo's throwaway folder, if it made one).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { app, protocol } from 'electron';
import { seedDemo } from '../../controller/demo/seed-demo.js';
import { stderrLogger } from '../../src/common/logger.js';
import { registerAppScheme } from './app-protocol.js';
import { DesktopApp } from './desktop-app.js';
import { planLaunch } from './launch-plan.js';
import { installSecurity } from './security.js';
import { HIDDEN_FLAG } from './start-at-login.js';

export const APP_ID = 'dev.postern.agent';

/** Demo data on the bundled controller, as `npm run demo` makes it, with the admin password it was started with. */
async function seedBundledDemo(controllerUrl: string, adminPasswordFile: string) {
  const adminPassword =
    process.env.POSTERN_ADMIN_PASSWORD || (await readFile(adminPasswordFile, 'utf8')).trim();
  return seedDemo(controllerUrl, adminPassword);
}

installSecurity(app);
registerAppScheme(protocol);

const plan = planLaunch({
  isPackaged: app.isPackaged,
  argv: process.argv,
  env: process.env,
  userData: app.getPath('userData'),
});
// The demo's profile (and single-instance lock) is its own: it leaves nothing in the real one.
if (plan.demoDir) app.setPath('userData', plan.app.dataDir);
if (plan.ownedDemoFolder) console.log(plan.ownedDemoFolder.description);

if (!app.requestSingleInstanceLock()) {
  // Another Postern is running; it was told (second-instance) and shows its window.
  app.quit();
} else {
  const here = import.meta.dirname;
  const desktop = new DesktopApp({
    rendererDir: join(here, '..', 'renderer'),
    preload: join(here, '..', 'preload', 'preload.cjs'),
    controllerEntry: join(here, 'controller-process.js'),
    devServerUrl: app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL,
    ...plan.app,
    startHidden: process.argv.includes(HIDDEN_FLAG),
    seedDemo: seedBundledDemo,
    logger: stderrLogger(app.isPackaged ? 'warn' : 'info'),
    onQuit: () => app.quit(),
  });
  if (process.platform === 'win32') app.setAppUserModelId(APP_ID);
  app.on('second-instance', () => desktop.windows.showMain());
  app.on('activate', () => desktop.windows.showMain());
  // The app lives in the tray: no window is no reason to quit.
  app.on('window-all-closed', () => undefined);
  let stopped = false;
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    void desktop.stop().finally(() => {
      plan.ownedDemoFolder?.remove();
      stopped = true;
      app.quit();
    });
  });
  app
    .whenReady()
    .then(() => desktop.start())
    .catch((error: unknown) => {
      console.error(`postern: could not start: ${error instanceof Error ? error.message : String(error)}`);
      app.exit(1);
    });
}
