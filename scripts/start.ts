/**
 * `npm start`: builds and launches the desktop app where the Electron runtime is available; otherwise one
 * line saying why, then the same agent headless in this terminal against the bundled controller (demo
 * data, user data folder).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findElectron } from './electron-runtime.js';
import { runHeadless } from './headless-app.js';
import { defaultDataDir } from '../controller/data-dir.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function launchDesktop(electronPath: string): Promise<number> {
  console.log('postern: building the desktop app...');
  const { build } = await import('electron-vite');
  await build({ root: ROOT, configFile: 'electron.vite.config.ts', logLevel: 'warn' });
  const env = { ...process.env };
  // A dev-server URL left in the environment would make main load it instead of the built renderer.
  delete env.ELECTRON_RENDERER_URL;
  const child = spawn(electronPath, [ROOT], { stdio: 'inherit', env });
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const electron = await findElectron();
  if (electron.available) return launchDesktop(electron.path);
  console.log(
    `postern: the Electron runtime is not available here (${electron.reason}); running the agent headless in this terminal.`,
  );
  await runHeadless({ dataDir: defaultDataDir(), port: 0 });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`postern: could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
