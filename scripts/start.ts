/**
 * `npm start`: the desktop app where the Electron runtime is available; otherwise one line saying why,
 * then the bundled controller (with demo data) and the headless agent in this terminal.
 */
import { findElectron } from './electron-runtime.js';
import { startController } from '../controller/app.js';
import { defaultConfig } from '../controller/config.js';
import { defaultDataDir } from '../controller/data-dir.js';

async function main(): Promise<void> {
  const electron = await findElectron();
  if (electron.available) {
    console.log(`postern: Electron found at ${electron.path}, but the desktop shell is not built yet; running headless.`);
  } else {
    console.log(`postern: the Electron runtime is not available here (${electron.reason}); running headless in this terminal.`);
  }
  const config = { ...defaultConfig(defaultDataDir()), port: 0 };
  const controller = await startController(config, { adminPassword: process.env.POSTERN_ADMIN_PASSWORD });
  if (controller.bootstrap.generatedPassword) {
    console.log(`postern: admin password ${controller.bootstrap.generatedPassword} (also in ${controller.bootstrap.passwordFile})`);
  }
  console.log(`postern: controller data in ${config.dataDir}`);
  console.log(`postern: bundled controller listening on ${controller.url} (Ctrl-C to stop)`);
  const stop = () => void controller.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(`postern: could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
