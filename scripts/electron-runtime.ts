import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export type ElectronRuntime = { available: true; path: string } | { available: false; reason: string };

/**
 * Asks the `electron` package for its binary in a child process: Electron 45 downloads the binary on
 * first use and throws when it cannot, and doing that in a child keeps its noise out of our terminal.
 */
export function findElectron(timeoutMs = 120_000): Promise<ElectronRuntime> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', "process.stdout.write(require('electron'))"], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: process.env,
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill();
      resolve({ available: false, reason: 'timed out fetching the Electron binary' });
    }, timeoutMs);
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      const path = out.trim();
      if (code === 0 && path && existsSync(path)) return resolve({ available: true, path });
      const firstLine =
        err.split('\n').find((l) => /Error|failed/i.test(l)) ?? 'the Electron binary could not be installed';
      resolve({ available: false, reason: firstLine.replace(/^.*?Error:\s*/, '').trim() });
    });
  });
}
