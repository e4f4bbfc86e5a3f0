/**
 * The bundled controller's utility-process entry, run for real in a Node child with a stand-in for
 * Electron's `process.parentPort`: it starts the controller on loopback, reports where, serves the API,
 * and closes cleanly on SIGTERM (as utilityProcess.kill sends).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';

const ENTRY = join(import.meta.dirname, '..', '..', '..', 'desktop', 'main', 'controller-process.ts');

/** A Node child where `process.parentPort` relays messages over stdin/stdout lines. */
function runEntry(request: unknown) {
  const script = `
    import { EventEmitter } from 'node:events';
    const port = new EventEmitter();
    port.postMessage = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
    process.parentPort = port;
    await import(${JSON.stringify(ENTRY)});
    port.emit('message', { data: ${JSON.stringify(request)} });
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, POSTERN_ADMIN_PASSWORD: '' },
  });
  let out = '';
  const message = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code} before reporting`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, message, exited };
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('starts the controller on loopback, answers, and stops on SIGTERM', async () => {
  dir = mkdtempSync(join(tmpdir(), 'postern-bundled-'));
  const run = runEntry({ dataDir: dir, port: 0 });
  const message = await run.message;
  expect(message).toMatchObject({
    type: 'listening',
    url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
  });
  const version = await fetch(`${message.url as string}/edge/client/v1/version`);
  expect(version.status).toBe(200);
  // First start on an empty data folder: an admin password was generated and kept for the demo seeding.
  expect(existsSync(join(dir, 'admin-password'))).toBe(true);
  run.child.kill('SIGTERM');
  expect(await run.exited).toBe(0);
});

it('falls back to a free port when the remembered one is taken', async () => {
  dir = mkdtempSync(join(tmpdir(), 'postern-bundled-'));
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as { port: number }).port;
  try {
    const run = runEntry({ dataDir: dir, port: taken });
    const message = await run.message;
    expect(message.type).toBe('listening');
    expect(message.port).not.toBe(taken);
    run.child.kill('SIGTERM');
    await run.exited;
  } finally {
    blocker.close();
  }
});
