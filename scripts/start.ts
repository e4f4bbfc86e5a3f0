/**
 * `npm start`: builds and launches the desktop app where the Electron runtime is available; otherwise one
 * line saying why, then the same agent headless in this terminal against the bundled controller with demo
 * data. Either way the demo lives in a throwaway folder, deleted on exit unless `--keep` is given.
 *
 *   npm start -- [--keep | --data-dir DIR]
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findElectron } from './electron-runtime.js';
import {
  defaultConsoleDir,
  prepareConsole,
  viteConsoleBuilder,
} from '../controller/console/console-build.js';
import { runHeadless } from './headless-app.js';
import {
  DEMO_DIR_ENV,
  openDemoFolder,
  removeOnSignals,
  type DemoFolder,
} from '../controller/demo/demo-folder.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const USAGE = `Usage: npm start -- [--keep | --data-dir DIR]

  --keep          keep the demo's folder (a fresh one under the temp folder) instead of deleting it on exit
  --data-dir DIR  run the demo on this folder (e.g. one kept earlier); it is never deleted`;

async function launchDesktop(electronPath: string, folder: DemoFolder): Promise<number> {
  console.log('postern: building the desktop app...');
  const { build } = await import('electron-vite');
  await build({ root: ROOT, configFile: 'electron.vite.config.ts', logLevel: 'warn' });
  // The app keeps its controller, agent.json and profile in the demo folder; this process removes it.
  const env: NodeJS.ProcessEnv = { ...process.env, [DEMO_DIR_ENV]: folder.path };
  // A dev-server URL left in the environment would make main load it instead of the built renderer.
  delete env.ELECTRON_RENDERER_URL;
  // Its own process group on POSIX, so a Ctrl-C reaches it once, through us: Electron quits cleanly on the
  // first signal but dies at once on a second. (On Windows `detached` would open a console window.)
  const child = spawn(electronPath, [ROOT], {
    stdio: 'inherit',
    env,
    detached: process.platform !== 'win32',
  });
  // The folder goes when this process exits, which is only once the app has quit and let go of it.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward);
  return new Promise((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { keep: { type: 'boolean' }, 'data-dir': { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const electron = await findElectron();
  if (!electron.available)
    console.log(
      `postern: the Electron runtime is not available here (${electron.reason}); running the agent headless in this terminal.`,
    );
  // The bundled controller serves the administrators' console; it is built here, before it starts.
  await prepareConsole(defaultConsoleDir(), viteConsoleBuilder(ROOT), (line) => console.log(line));
  const folder = openDemoFolder({ keep: values.keep, dir: values['data-dir'] });
  removeOnSignals(folder);
  console.log(folder.description);
  if (electron.available) return launchDesktop(electron.path, folder);
  await runHeadless({ dataDir: join(folder.path, 'controller'), port: 0 });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`postern: could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
