/**
 * Which controller a launch of the desktop app runs and where it keeps its data, through the real
 * composition root with the fake electron module: a packaged app starts no bundled controller and opens
 * the sign-in with no controller filled in; `--demo` in a packaged app, and development by default, run
 * the demo in a throwaway folder that goes after quit, leaving the user's own agent.json alone.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../fakes/electron.js'));

const fake = await import('../../fakes/electron.js');
const { DesktopApp } = await import('../../../desktop/main/desktop-app.js');
const { planLaunch } = await import('../../../desktop/main/launch-plan.js');
const { fixedCollector } = await import('../../helpers/desktop-app-harness.js');
const { RecordingController } = await import('../../helpers/desktop-recording-controller.js');
const { MemoryCredentialStore } = await import('../../../src/agent/credentials/memory-credential-store.js');
type LaunchContext = import('../../../desktop/main/launch-plan.js').LaunchContext;
type LaunchPlan = import('../../../desktop/main/launch-plan.js').LaunchPlan;
type DesktopAppInstance = import('../../../desktop/main/desktop-app.js').DesktopApp;
type RecordingControllerInstance =
  import('../../helpers/desktop-recording-controller.js').RecordingController;

const MAIN = 'postern://app/index.html#/services';
const DEMO_LOGIN = { username: 'demo', password: 'demo-password' };

let root: string;
let controller: RecordingControllerInstance;
let desktop: DesktopAppInstance | undefined;

beforeEach(async () => {
  fake.resetFakeElectron();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'postern-launch-')));
  // The user's own folders, and the temp folder the demo's throwaway one goes in, all inside this test's.
  for (const dir of ['tmp', 'config', 'data']) mkdirSync(join(root, dir));
  vi.stubEnv('TMPDIR', join(root, 'tmp'));
  vi.stubEnv('XDG_CONFIG_HOME', join(root, 'config'));
  vi.stubEnv('XDG_DATA_HOME', join(root, 'data'));
  controller = await RecordingController.start();
  // The bundled controller's utility process, as it answers when it listens: here, the recording one.
  fake.utilityProcess.respond = () => ({
    type: 'listening',
    url: controller.url,
    port: Number(new URL(controller.url).port),
  });
});

afterEach(async () => {
  await desktop?.stop();
  desktop = undefined;
  await controller.close();
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
});

function plan(context: Partial<LaunchContext>): LaunchPlan {
  return planLaunch({
    isPackaged: false,
    argv: ['/opt/Postern/postern'],
    env: {},
    userData: join(root, 'user-data'),
    ...context,
  });
}

/** Starts the app as desktop/main/index.ts does, with the plan's options. */
async function start(launch: LaunchPlan, seedDemo = vi.fn(async () => DEMO_LOGIN)) {
  desktop = new DesktopApp({
    rendererDir: join(root, 'renderer'),
    preload: join(root, 'preload.cjs'),
    controllerEntry: join(root, 'controller-process.js'),
    ...launch.app,
    // Where the plan leaves credentials to the OS keychain, an in-memory one stands in for it.
    credentials: launch.app.credentials ?? new MemoryCredentialStore(),
    platform: 'darwin',
    agent: { collector: fixedCollector, reportIntervalMs: 60_000, retry: { maxRetries: 0 } },
    seedDemo,
  });
  await desktop.start();
  return { desktop, seedDemo };
}

const sessionView = async () =>
  ((await fake.ipcMain.invokeFrom(MAIN, 'session:get')) as { value: Record<string, unknown> }).value;
const startRequests = () => fake.utilityProcess.forked.flatMap((child) => child.received);

describe('a packaged app', () => {
  it('starts no bundled controller and opens the sign-in with no controller filled in', async () => {
    const launch = plan({ isPackaged: true });
    expect(launch.demoDir).toBeUndefined();
    expect(launch.app.controllerDataDir).toBe(join(root, 'data', 'postern', 'controller'));
    const { seedDemo } = await start(launch);

    expect(fake.utilityProcess.fork).not.toHaveBeenCalled();
    expect(seedDemo).not.toHaveBeenCalled();
    expect(controller.requests).toEqual([]);
    // What the main window's renderer reads: signed out, nowhere to go, so the sign-in asks for the address.
    const session = await sessionView();
    expect(session.status).toBe('signed-out');
    expect(session.controllerUrl).toBeNull();
    expect(fake.BrowserWindow.all.some((w) => w.visible)).toBe(true);
    expect(await fake.ipcMain.invokeFrom(MAIN, 'settings:get')).toMatchObject({
      value: { useBundledController: false },
    });
  });

  it('runs the demo when asked with --demo, in a throwaway folder that goes after quit', async () => {
    const elsewhere = join(root, 'elsewhere');
    const launch = plan({
      isPackaged: true,
      argv: ['/opt/Postern/postern', '--demo'],
      // Only `npm start` hands over a folder; a packaged app makes its own.
      env: { POSTERN_DEMO_DIR: elsewhere },
    });
    const folder = launch.ownedDemoFolder!;
    expect(folder.path.startsWith(join(root, 'tmp', 'postern-demo-'))).toBe(true);
    const { seedDemo } = await start(launch);

    expect(fake.utilityProcess.fork).toHaveBeenCalledTimes(1);
    expect(startRequests()).toEqual([{ dataDir: join(folder.path, 'controller'), port: 0 }]);
    expect(seedDemo).toHaveBeenCalledTimes(1);
    expect(desktop!.agent.session()).toMatchObject({ status: 'signed-in', controllerUrl: controller.url });

    await desktop!.stop();
    desktop = undefined;
    folder.remove();
    expect(existsSync(folder.path)).toBe(false);
    expect(existsSync(elsewhere)).toBe(false);
  });
});

describe('development', () => {
  it("runs the demo by default and leaves the user's agent.json alone", async () => {
    const userSettings = join(root, 'config', 'postern', 'agent.json');
    mkdirSync(join(root, 'config', 'postern'));
    const mine = `${JSON.stringify({ controllerUrl: 'https://controller.example.com', username: 'ann' })}\n`;
    writeFileSync(userSettings, mine);
    const launch = plan({});
    const demoDir = launch.demoDir!;
    expect(launch.app.credentials).toBeInstanceOf(MemoryCredentialStore);
    await start(launch);

    expect(startRequests()).toEqual([{ dataDir: join(demoDir, 'controller'), port: 0 }]);
    const login = await controller.waitFor((r) => r.path === '/authenticate');
    expect(login.body).toMatchObject(DEMO_LOGIN);
    expect(desktop!.agent.session()).toMatchObject({ status: 'signed-in', controllerUrl: controller.url });
    // The demo remembers its controller in its own folder; the user's agent still goes to theirs.
    expect(JSON.parse(readFileSync(join(demoDir, 'agent', 'agent.json'), 'utf8'))).toMatchObject({
      controllerUrl: controller.url,
    });
    expect(readFileSync(userSettings, 'utf8')).toBe(mine);
    expect(existsSync(join(root, 'user-data'))).toBe(false);

    await desktop!.stop();
    desktop = undefined;
    launch.ownedDemoFolder!.remove();
    expect(existsSync(demoDir)).toBe(false);
  });

  it('takes the folder npm start made, and leaves removing it to npm start', () => {
    const handed = join(root, 'from-npm-start');
    const launch = plan({ env: { POSTERN_DEMO_DIR: handed } });
    expect(launch.demoDir).toBe(handed);
    expect(launch.ownedDemoFolder).toBeUndefined();
    expect(launch.app).toMatchObject({
      dataDir: join(handed, 'app'),
      controllerDataDir: join(handed, 'controller'),
      configDir: join(handed, 'agent'),
      bundledControllerByDefault: true,
    });
  });

  it('keeps the throwaway folder with --keep', () => {
    const folder = plan({ argv: ['electron', '.', '--keep'] }).ownedDemoFolder!;
    expect(folder.description).toBe(
      `demo data: ${folder.path} (kept on exit; --data-dir ${folder.path} runs the demo on it again)`,
    );
    folder.remove();
    expect(existsSync(folder.path)).toBe(true);
  });
});
