/**
 * Where this launch of the desktop app keeps its data, decided before Electron is ready.
 *
 * The demo (the default in development, `--demo` in a packaged app) keeps everything in a demo folder:
 * the bundled controller's data, agent.json, the app's own profile, and credentials in memory only, so
 * trying it changes nothing the user's real agent signs in to. `npm start` makes that folder and hands it
 * over in the environment; otherwise this process makes a throwaway one (kept with `--keep`).
 *
 * A packaged app without `--demo` is the user's own agent: their folders and keychain, and no bundled
 * controller unless they switch it on in Settings, so the first run asks for their controller's address.
 */
import { join } from 'node:path';
import { defaultDataDir } from '../../controller/data-dir.js';
import { DEMO_DIR_ENV, openDemoFolder, type DemoFolder } from '../../controller/demo/demo-folder.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import type { DesktopAppOptions } from './desktop-app.js';

export const DEMO_FLAG = '--demo';
export const KEEP_FLAG = '--keep';

export interface LaunchContext {
  /** Electron's app.isPackaged. */
  isPackaged: boolean;
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Electron's userData folder, as it is before this plan. */
  userData: string;
}

/** The DesktopApp options a launch decides. */
export type LaunchOptions = Pick<
  DesktopAppOptions,
  'dataDir' | 'controllerDataDir' | 'configDir' | 'credentials' | 'bundledControllerByDefault'
>;

export interface LaunchPlan {
  /** The demo's folder when this launch is the demo; the app's profile (Electron's userData) goes there. */
  demoDir: string | undefined;
  /** The throwaway folder this process made: remove it once the app has stopped. */
  ownedDemoFolder: DemoFolder | undefined;
  /** configDir and credentials unset: the user's own agent.json (shared with the CLI) and keychain. */
  app: LaunchOptions;
}

export function planLaunch(context: LaunchContext): LaunchPlan {
  const demo = !context.isPackaged || context.argv.includes(DEMO_FLAG);
  if (!demo) {
    return {
      demoDir: undefined,
      ownedDemoFolder: undefined,
      app: {
        dataDir: context.userData,
        controllerDataDir: defaultDataDir(),
        bundledControllerByDefault: false,
      },
    };
  }
  // Only `npm start` sets the variable; a packaged app never takes a folder from its environment.
  const handedOver = context.isPackaged ? undefined : context.env[DEMO_DIR_ENV] || undefined;
  const ownedDemoFolder = handedOver ? undefined : openDemoFolder({ keep: context.argv.includes(KEEP_FLAG) });
  const demoDir = handedOver ?? ownedDemoFolder!.path;
  return {
    demoDir,
    ownedDemoFolder,
    app: {
      dataDir: join(demoDir, 'app'),
      controllerDataDir: join(demoDir, 'controller'),
      configDir: join(demoDir, 'agent'),
      credentials: new MemoryCredentialStore(),
      bundledControllerByDefault: true,
    },
  };
}
