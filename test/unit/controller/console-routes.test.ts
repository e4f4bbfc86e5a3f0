/**
 * The console's static handler: every answer under /console carries the strict CSP; files come only from the
 * build folder, whatever the path's encoding; pages of the console's own routing get the index; a missing
 * build is answered with 503 and the command that builds it (never built on a request), never a 500; a build
 * made while serving is served at once. `prepareConsole` builds a missing console once, before listening.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CONSOLE_CSP,
  registerConsole,
  type ConsoleOptions,
} from '../../../controller/console/console-routes.js';
import { resolveConsoleFile } from '../../../controller/console/console-files.js';
import { prepareConsole, type ConsoleBuilder } from '../../../controller/console/console-build.js';
import { startTestController } from '../../helpers/controller.js';

const INDEX = '<!doctype html><title>console</title>';
const SECRET = 'outside the build';

let folders: string[] = [];
let apps: FastifyInstance[] = [];

afterEach(async () => {
  await Promise.all(apps.map((a) => a.close()));
  folders.forEach((f) => rmSync(f, { recursive: true, force: true }));
  folders = [];
  apps = [];
});

/** A folder holding `console/` (the build, unless `built` is false) and a secret file beside it. */
function layout(built = true): { root: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'postern-console-'));
  folders.push(root);
  writeFileSync(join(root, 'secret.txt'), SECRET);
  const dir = join(root, 'console');
  if (built) writeBuild(dir);
  return { root, dir };
}

function writeBuild(dir: string): void {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
  writeFileSync(join(dir, '.env'), 'hidden');
}

async function serve(options: Partial<ConsoleOptions> & { dir: string }): Promise<FastifyInstance> {
  const app = Fastify();
  registerConsole(app, options);
  await app.ready();
  apps.push(app);
  return app;
}

const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url });

describe('the console at /console', () => {
  it('serves the index for /console/ and for every page of its own routing, never cached', async () => {
    const app = await serve({ dir: layout().dir });
    for (const url of ['/console/', '/console/identities', '/console/identities/3f2a-b1?x=1']) {
      const res = await get(app, url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(INDEX);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const bare = await get(app, '/console');
    expect(bare.statusCode).toBe(308);
    expect(bare.headers.location).toBe('/console/');
  });

  it('serves hashed assets with a long cache', async () => {
    const app = await serve({ dir: layout().dir });
    const res = await get(app, '/console/assets/app-1234.js');
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('console.log(1)');
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get(app, '/console/assets/missing.js')).statusCode).toBe(404);
  });

  it('sends the strict CSP, nosniff and no-referrer with every answer', async () => {
    const app = await serve({ dir: layout().dir });
    expect(CONSOLE_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    for (const url of [
      '/console',
      '/console/',
      '/console/assets/app-1234.js',
      '/console/nope.js',
      '/console/..%2f',
    ]) {
      const res = await get(app, url);
      expect(res.headers['content-security-policy'], url).toBe(CONSOLE_CSP);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
    }
  });

  it('never serves a file outside the build, however the path is written', async () => {
    const app = await serve({ dir: layout().dir });
    const attempts = [
      '/console/../secret.txt',
      '/console/..%2fsecret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/%2E%2E%2Fsecret.txt',
      '/console/assets/..%2f..%2fsecret.txt',
      '/console/assets/%2e%2e/%2e%2e/secret.txt',
      '/console/%252e%252e%252fsecret.txt',
      '/console/..%5csecret.txt',
      '/console/secret.txt%00.js',
      '/console/.env',
      '/console/%E0%A4%A',
    ];
    for (const url of attempts) {
      const res = await get(app, url);
      expect(res.body, url).not.toContain(SECRET);
      expect(res.body, url).not.toContain('hidden');
      expect([404, 400], url).toContain(res.statusCode);
    }
  });

  it('answers 503 with the command that builds it when the build is missing', async () => {
    const { dir } = layout(false);
    const app = await serve({ dir });
    const res = await get(app, '/console/');
    expect(res.statusCode).toBe(503);
    expect(res.body).toContain('npm run build:console');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
    // A build that appears later (npm run build:console while the controller runs) is served at once.
    writeBuild(dir);
    expect((await get(app, '/console/')).statusCode).toBe(200);
  });
});

describe('prepareConsole', () => {
  it('builds a missing console once, and leaves an existing build alone', async () => {
    const { dir } = layout(false);
    let builds = 0;
    const lines: string[] = [];
    const builder: ConsoleBuilder = async (outDir) => {
      builds++;
      writeBuild(outDir);
    };
    expect(await prepareConsole(dir, builder, (line) => lines.push(line))).toBe(true);
    expect(await prepareConsole(dir, builder, (line) => lines.push(line))).toBe(true);
    expect(builds).toBe(1);
    expect(lines).toEqual([expect.stringContaining("building the administrators' console")]);
  });

  it('reports a failed or impossible build in one line instead of throwing', async () => {
    const { dir } = layout(false);
    const lines: string[] = [];
    const failing: ConsoleBuilder = async () => {
      throw new Error('vite exploded');
    };
    expect(await prepareConsole(dir, failing, (line) => lines.push(line))).toBe(false);
    expect(lines.at(-1)).toMatch(/could not build the console \(run npm run build:console\): vite exploded/);
    expect(await prepareConsole(dir, null, (line) => lines.push(line))).toBe(false);
    expect(lines.at(-1)).toContain('npm run build:console');
  });
});

describe('resolveConsoleFile', () => {
  const root = '/srv/console';
  it('maps plain paths inside the folder', () => {
    expect(resolveConsoleFile(root, 'assets/app.js')).toBe('/srv/console/assets/app.js');
    expect(resolveConsoleFile(root, '')).toBe('/srv/console');
    expect(resolveConsoleFile(root, 'a//b')).toBe('/srv/console/a/b');
  });
  it('refuses parents, hidden files, backslashes, NUL bytes and broken encodings', () => {
    for (const path of ['..', '../x', 'a/../../x', '%2e%2e/x', '.git/config', 'a\\..\\x', 'a%00', '%zz'])
      expect(resolveConsoleFile(root, path), path).toBeNull();
  });
});

describe('the controller', () => {
  it('serves the console beside its APIs, outside their authentication', async () => {
    const { dir } = layout();
    const controller = await startTestController({ consoleDir: dir });
    try {
      const res = await fetch(`${controller.url}/console/identities`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(INDEX);
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      // Not an API operation: the published documents leave it out.
      const document = (await (await fetch(`${controller.url}/openapi.json`)).json()) as { paths: object };
      expect(Object.keys(document.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
    } finally {
      await controller.dispose();
    }
  });
});
