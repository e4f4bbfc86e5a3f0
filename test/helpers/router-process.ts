/**
 * The standalone edge router as users run it (`edge-router/cli.ts`), in a child process: resolves once it
 * prints `router listening on tls://…`, or rejects with everything it printed when it exits first. Used by
 * the standalone-router tests and the data-plane bench.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface RouterProcess {
  pid: number;
  url: string;
  output: () => string;
  stop(): Promise<number | null>;
}

const CLI = join(import.meta.dirname, '..', '..', 'edge-router', 'cli.ts');

export function spawnRouter(args: string[]): Promise<RouterProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`router did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /router listening on (tls:\/\/\S+)/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        url: m[1]!,
        output: () => output,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new RouterExit(code, output));
    });
  });
}

/** The router exited before it listened; `output` says why. */
export class RouterExit extends Error {
  constructor(
    readonly code: number | null,
    readonly output: string,
  ) {
    super(`router exited with ${code} before listening:\n${output}`);
  }
}
