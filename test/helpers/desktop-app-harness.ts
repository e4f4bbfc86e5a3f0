/**
 * Builds the desktop app's composition root (desktop/main/desktop-app.ts) for unit tests: the test file mocks
 * `electron` with test/fakes/electron.ts; here come a recording controller, an in-memory keychain, temp
 * folders and a collector with fixed answers, so only the Electron APIs are fake.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PostureCollector } from '../../src/agent/collectors/posture-collector.js';
import { MemoryCredentialStore } from '../../src/agent/credentials/memory-credential-store.js';
import { DesktopApp, type DesktopAppOptions } from '../../desktop/main/desktop-app.js';
import { RecordingController } from './desktop-recording-controller.js';

export const fixedCollector: PostureCollector = {
  collectOs: async (id) => ({ id, typeId: 'OS', type: 'Linux', version: '6.8.0', build: '' }),
  collectMac: async (id) => ({ id, typeId: 'MAC', macAddresses: ['aabbccddeeff'] }),
  collectDomain: async (id) => ({ id, typeId: 'DOMAIN', domain: '' }),
  collectProcesses: async (queries) =>
    queries.map((q) => ({
      id: q.id,
      typeId: 'PROCESS',
      path: q.path,
      isRunning: true,
      hash: '',
      signerFingerprints: [],
    })),
};

export interface DesktopHarness {
  desktop: DesktopApp;
  controller: RecordingController;
  dispose(): Promise<void>;
}

export interface HarnessOptions {
  /** Run the bundled controller (the test answers the fake utility process). Off by default. */
  bundled?: boolean;
  seedDemo?: DesktopAppOptions['seedDemo'];
  /** The controller agent.json names, as if the user had signed in to it before. */
  savedControllerUrl?: (controller: RecordingController) => string;
  /** The Postern service's socket; by default a path where none listens (proxy mode, not installed). */
  serviceSocket?: string;
  /** Runs before the app starts (to script the fake electron module). */
  beforeStart?: (controller: RecordingController) => void;
}

/** A started DesktopApp; signed out and pointed at nothing unless the options say otherwise. */
export async function startDesktopHarness(options: HarnessOptions = {}): Promise<DesktopHarness> {
  const root = mkdtempSync(join(tmpdir(), 'postern-desktop-'));
  const dataDir = join(root, 'data');
  const configDir = join(root, 'config');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(dataDir, 'desktop.json'),
    JSON.stringify({ useBundledController: options.bundled === true }),
  );
  const controller = await RecordingController.start();
  if (options.savedControllerUrl) {
    writeFileSync(
      join(configDir, 'agent.json'),
      JSON.stringify({ controllerUrl: options.savedControllerUrl(controller) }),
    );
  }
  options.beforeStart?.(controller);
  const desktop = new DesktopApp({
    rendererDir: join(root, 'renderer'),
    preload: join(root, 'preload.cjs'),
    controllerEntry: join(root, 'controller-process.js'),
    dataDir,
    controllerDataDir: join(root, 'controller'),
    configDir,
    credentials: new MemoryCredentialStore(),
    // darwin: Electron's own lock/unlock events, and no D-Bus source to spawn.
    platform: 'darwin',
    agent: { collector: fixedCollector, reportIntervalMs: 60_000, retry: { maxRetries: 0 } },
    seedDemo: options.seedDemo,
    serviceSocket: options.serviceSocket ?? join(root, 'no-service.sock'),
  });
  await desktop.start();
  return {
    desktop,
    controller,
    async dispose() {
      await desktop.stop();
      await controller.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
