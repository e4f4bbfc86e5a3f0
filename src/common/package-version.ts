import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Postern's version from the nearest package.json named `postern`, searched upwards from `fromUrl`
 * (a module's `import.meta.url`): the file sits at a different depth in the source tree, `dist/`, the
 * electron-vite bundle and the packaged app. Shared by the controller and the agent (Node only).
 */
export function posternVersion(fromUrl: string): string {
  let dir = dirname(fileURLToPath(fromUrl));
  for (let depth = 0; depth < 8; depth++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'postern' && pkg.version) return pkg.version;
    } catch {
      // not here; keep looking upwards
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return '0.0.0';
}
