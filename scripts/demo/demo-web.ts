/**
 * The demo's real service behind the tunnel: a small HTTP page that says who reached it and from where, and
 * the "sensor" its posture check requires: a harmless long-running process (`sleep`) the user can stop and
 * start from the console to watch access end and come back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';

export interface DemoWeb {
  port: number;
  close(): Promise<void>;
}

export async function startDemoWeb(): Promise<DemoWeb> {
  let visits = 0;
  const server: Server = createServer((req, res) => {
    visits++;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      `<!doctype html><title>Postern demo</title><h1>You reached demo-web through Postern</h1>` +
        `<p>Visit ${visits}, from ${req.socket.remoteAddress} (the edge router), path ${escapeHtml(req.url ?? '/')}.</p>` +
        `<p>Your connection went: app → agent on loopback → edge router (TLS, pinned) → this page.</p>\n`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The program the demo's process check asks for: a copy of `sleep` under its own name in the demo's folder,
 * so no other `sleep` on the machine can stand in for it. None where there is no `sleep` (Windows).
 */
export function sensorProgram(dataDir: string): { path: string; hash: string } | undefined {
  for (const candidate of ['/usr/bin/sleep', '/bin/sleep']) {
    try {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      const path = join(dataDir, 'postern-demo-sensor');
      if (!existsSync(path)) copyFileSync(realpathSync(candidate), path);
      chmodSync(path, 0o755);
      return {
        path: realpathSync(path),
        hash: createHash('sha256').update(readFileSync(path)).digest('hex'),
      };
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Starts and stops the sensor process; `running` says whether it is up. */
export class DemoSensor {
  private child: ChildProcess | undefined;

  constructor(private readonly path: string) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null;
  }

  start(): void {
    if (this.running) return;
    this.child = spawn(this.path, ['86400'], { stdio: 'ignore' });
    this.child.on('error', () => undefined);
  }

  stop(): void {
    this.child?.kill('SIGTERM');
    this.child = undefined;
  }
}
