/**
 * `npm start`: the desktop app where the Electron runtime is available; otherwise one line saying why,
 * then the same agent headless in this terminal against the bundled controller (demo data, user data folder).
 */
import { findElectron } from './electron-runtime.js';
import { runHeadless } from './headless-app.js';
import { defaultDataDir } from '../controller/data-dir.js';

async function main(): Promise<void> {
  const electron = await findElectron();
  if (electron.available) {
    console.log(`postern: Electron found at ${electron.path}, but the desktop shell is not built yet; running headless.`);
  } else {
    console.log(`postern: the Electron runtime is not available here (${electron.reason}); running the agent headless in this terminal.`);
  }
  await runHeadless({ dataDir: defaultDataDir(), port: 0 });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`postern: could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
