/**
 * electron-vite build of the desktop app: main (plus the bundled controller's utility-process entry),
 * the sandboxed preload (one CommonJS file: a sandboxed preload can only require 'electron'), and the
 * React renderer. Output goes to out/, which package.json's `main` and electron-builder use.
 */
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

/**
 * `electron-vite dev` only: React Fast Refresh injects an inline script and talks to the dev server over a
 * WebSocket, which the shipped CSP forbids. The built app keeps the strict policy of desktop/renderer/index.html.
 */
const devServerCsp: Plugin = {
  name: 'postern-dev-server-csp',
  apply: 'serve',
  transformIndexHtml: (html) =>
    html
      .replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
      .replace("connect-src 'none'", "connect-src 'self' ws:"),
};

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // Dependencies stay in node_modules (better-sqlite3 and @napi-rs/keyring are native).
      externalizeDeps: true,
      rolldownOptions: {
        input: {
          index: resolve('desktop/main/index.ts'),
          'controller-process': resolve('desktop/main/controller-process.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      rolldownOptions: {
        input: { preload: resolve('desktop/main/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'desktop/renderer',
    plugins: [react(), devServerCsp],
    build: {
      outDir: resolve('out/renderer'),
      rolldownOptions: { input: resolve('desktop/renderer/index.html') },
    },
  },
});
