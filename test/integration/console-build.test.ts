/**
 * The administrators' console is built before a controller listens, never on a request: an anonymous
 * `GET /console/` on a controller without a build answers at once with the page saying how to build it (it
 * used to run a multi-second vite build inside the controller, and retry a failed one on every request), and
 * `npm run controller` (server/cli.ts, a real process) builds a missing console before it says it listens.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnController, startTestController, tempDir } from '../helpers/controller.js';

const folders: string[] = [];
afterAll(() => folders.forEach((f) => rmSync(f, { recursive: true, force: true })));

/** A console folder that does not exist yet (no build). */
function unbuiltConsoleDir(): string {
  const root = mkdtempSync(join(tmpdir(), 'postern-console-build-'));
  folders.push(root);
  return join(root, 'console');
}

describe('the console build', () => {
  it('an anonymous request never builds it: 503 with how to build, every time, nothing written', async () => {
    const dir = unbuiltConsoleDir();
    const controller = await startTestController({ consoleDir: dir });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${controller.url}/console/`);
        expect(res.status).toBe(503);
        expect(await res.text()).toContain('npm run build:console');
      }
      expect(existsSync(dir)).toBe(false);
    } finally {
      await controller.dispose();
    }
  });

  it('npm run controller builds a missing console before it listens', { timeout: 180_000 }, async () => {
    const dir = unbuiltConsoleDir();
    const dataDir = tempDir();
    folders.push(dataDir);
    const controller = await spawnController(
      ['--data-dir', dataDir, '--port', '0', '--no-router', '--console-dir', dir],
      { POSTERN_ADMIN_PASSWORD: 'console-build-password' },
    );
    try {
      expect(existsSync(join(dir, 'index.html'))).toBe(true);
      const out = controller.output();
      expect(out.indexOf("building the administrators' console")).toBeLessThan(out.indexOf('listening on'));
      const res = await fetch(`${controller.url}/console/`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<div id="root">');
    } finally {
      await controller.stop();
    }
  });
});
