import { readFileSync } from 'node:fs';

/** Postern's own version, from package.json (read once). */
export const POSTERN_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    // The packaged app may place the controller elsewhere; the version is informative only.
    return '0.0.0';
  }
})();
