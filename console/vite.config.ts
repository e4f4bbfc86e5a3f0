/**
 * The administrators' console (React), built into out/console, which the controller serves at /console
 * (controller/console/). `npm run build:console` runs this; so does a controller that finds no build.
 * Paths come from this file's own location: the controller may build it from any working folder.
 *
 * `npx vite --config console/vite.config.ts` serves it for development, passing the API through to the
 * controller at POSTERN_CONTROLLER_URL (default http://127.0.0.1:1280).
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../out/console', import.meta.url)),
    emptyOutDir: true,
    // The polyfill would be one more script for every browser that has module preload anyway.
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: { '/edge': process.env.POSTERN_CONTROLLER_URL ?? 'http://127.0.0.1:1280' },
  },
});
