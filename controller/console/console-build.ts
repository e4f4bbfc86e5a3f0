/**
 * Where the administrators' console is built, and building it before a controller listens. A fresh clone has
 * no build: `npm run build` and `npm run build:console` make one, and so do `npm run controller` and
 * `npm start` before they start the controller (`prepareConsole`, with vite's own `build()`; vite is a dev
 * dependency, present wherever `npm ci` ran). A request never builds it: an anonymous `GET /console/` would
 * otherwise make the controller run a multi-second build, and retry a failing one on every request. Where
 * vite is absent (an install without dev dependencies) the console page says how to build it instead.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Builds the console into `outDir`. */
export type ConsoleBuilder = (outDir: string) => Promise<void>;

/** The folder holding package.json above `start`: the repository, or the packaged app. */
export function packageRoot(start = import.meta.dirname): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return start;
    dir = parent;
  }
  return dir;
}

/** `out/console` of the repository (as `npm run build:console` writes it). */
export function defaultConsoleDir(): string {
  return join(packageRoot(), 'out', 'console');
}

/**
 * Named through a variable so bundlers leave the import to run time: the desktop app's main bundle includes
 * this module and must not carry vite (a packaged app ships the built console and never builds it).
 */
const VITE = 'vite';

/** A builder from the console's sources, or null where they (or vite) are not installed. */
export function viteConsoleBuilder(root = packageRoot()): ConsoleBuilder | null {
  const configFile = join(root, 'console', 'vite.config.ts');
  if (!existsSync(configFile) || !existsSync(join(root, 'node_modules', 'vite'))) return null;
  return async (outDir) => {
    const { build } = (await import(VITE)) as typeof import('vite');
    // Into a fresh folder first, then moved into place: a request never sees half a build, and two
    // controllers building at once leave one complete build.
    mkdirSync(dirname(outDir), { recursive: true });
    const staging = mkdtempSync(`${outDir}.building-`);
    try {
      await build({ configFile, logLevel: 'warn', build: { outDir: staging, emptyOutDir: true } });
      try {
        renameSync(staging, outDir);
      } catch (err) {
        if (!existsSync(join(outDir, 'index.html'))) throw err;
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  };
}

/**
 * Builds the console into `dir` when it has no build yet, once, before the controller starts serving; says
 * so in one line. A failed or impossible build is reported, not thrown: the controller's APIs start anyway
 * and `/console/` says how to build it. Whether a build is there afterwards.
 */
export async function prepareConsole(
  dir: string,
  builder: ConsoleBuilder | null,
  announce: (line: string) => void,
): Promise<boolean> {
  if (existsSync(join(dir, 'index.html'))) return true;
  if (!builder) {
    announce(`postern: the administrators' console is not built (${dir}): run npm run build:console`);
    return false;
  }
  announce(`postern: building the administrators' console into ${dir} (once)...`);
  try {
    await builder(dir);
    return true;
  } catch (err) {
    announce(`postern: could not build the console (run npm run build:console): ${(err as Error).message}`);
    return false;
  }
}
