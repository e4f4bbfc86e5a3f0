// Kept apart from controller.ts, which the benchmarks import too: this one registers vitest hooks.
import { rmSync } from 'node:fs';
import { afterEach } from 'vitest';
import { spawnController, tempDir, type ControllerProcess } from './controller.js';

/**
 * Controllers run as child processes and their throw-away folders, stopped and removed after each test of
 * the file that calls this (at its top level). `running` may be edited by a test that stops one itself.
 */
export function controllerProcessScope() {
  const running: ControllerProcess[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.stop()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    running,
    newDir(): string {
      const d = tempDir();
      dirs.push(d);
      return d;
    },
    async start(args: string[], env: Record<string, string | undefined> = {}): Promise<ControllerProcess> {
      const p = await spawnController(args, env);
      running.push(p);
      return p;
    },
  };
}
