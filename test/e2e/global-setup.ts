/**
 * Builds the app as it ships (electron-vite: main, sandboxed preload, renderer into out/), then the same
 * preload once more for a plain browser page, with 'electron' swapped for the Playwright-backed shim, so
 * the UI tests run the real renderer behind the real preload code; and the administrators' console
 * (out/console), which the controller serves.
 */
import { resolve } from 'node:path';
import { build as buildElectronApp } from 'electron-vite';
import { build } from 'vite';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const RENDERER_DIR = resolve(ROOT, 'out', 'renderer');
export const BROWSER_PRELOAD = resolve(ROOT, 'out', 'e2e', 'preload-bridge.js');
export const CONSOLE_DIR = resolve(ROOT, 'out', 'console');

export default async function globalSetup(): Promise<void> {
  await buildElectronApp({
    root: ROOT,
    configFile: resolve(ROOT, 'electron.vite.config.ts'),
    logLevel: 'warn',
  });
  await build({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    resolve: { alias: { electron: resolve(ROOT, 'test', 'e2e', 'support', 'electron-shim.ts') } },
    build: {
      outDir: resolve(ROOT, 'out', 'e2e'),
      emptyOutDir: true,
      minify: false,
      lib: {
        entry: resolve(ROOT, 'desktop', 'main', 'preload.ts'),
        formats: ['iife'],
        name: 'posternPreload',
        fileName: () => 'preload-bridge.js',
      },
    },
  });
  await build({ configFile: resolve(ROOT, 'console', 'vite.config.ts'), logLevel: 'warn' });
}
