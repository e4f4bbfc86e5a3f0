/**
 * Reaching the controller from OpenZiti's console (ZAC), as issue 30 asks: `--cors-origin` for a ZAC hosted on
 * another origin, `--zac` for one served by the controller itself at /zac/. Real HTTP on a real controller.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT, CLIENT } from '../helpers/api.js';
import {
  ADMIN_PASSWORD,
  runControllerCli,
  spawnController,
  startTestController,
  tempDir,
  type TestController,
} from '../helpers/controller.js';
import { parseControllerArgs, UsageError } from '../../controller/composition/cli-args.js';

const ZAC_ORIGIN = 'http://zac.localhost:8080';
const INDEX =
  '<!doctype html><html><head><base href="/zac/"></head><body><app-root></app-root></body></html>';

let tc: TestController;
let outer: string;
let zacDir: string;

beforeAll(async () => {
  outer = tempDir('postern-zac-');
  zacDir = join(outer, 'build');
  mkdirSync(join(zacDir, 'assets'), { recursive: true });
  writeFileSync(join(zacDir, 'index.html'), INDEX);
  writeFileSync(join(zacDir, 'main.js'), 'console.log("zac")');
  writeFileSync(join(zacDir, 'assets', 'logo.svg'), '<svg/>');
  // A file beside the build that must never be reachable through /zac/.
  writeFileSync(join(outer, 'postern-zac-secret.txt'), 'secret');
  tc = await startTestController({ corsOrigins: [ZAC_ORIGIN], zacDir });
});
afterAll(async () => {
  await tc?.dispose();
  rmSync(outer, { recursive: true, force: true });
});

/** A request whose path is sent exactly as written (fetch would resolve `..` itself). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const url = new URL(tc.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('--cors-origin', () => {
  const preflight = (origin: string, path = `${MGMT}/identities`) =>
    fetch(`${tc.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'zt-session,content-type',
      },
    });

  it('answers a preflight from a listed origin, granting ZAC’s methods and headers, before authentication', async () => {
    for (const path of [`${MGMT}/identities`, `${MGMT}/identities/some-id`, `${CLIENT}/services`]) {
      const res = await preflight(ZAC_ORIGIN, path);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ZAC_ORIGIN);
      expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
      expect(res.headers.get('access-control-allow-methods')).toContain('DELETE');
      expect(res.headers.get('access-control-allow-headers')).toContain('zt-session');
      expect(res.headers.get('access-control-allow-headers')).toContain('content-type');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('grants nothing to another origin', async () => {
    const res = await preflight('http://evil.localhost:8080');
    expect(res.status).not.toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-headers')).toBeNull();
    const admin = new Api(tc.url);
    await admin.login('admin', ADMIN_PASSWORD);
    const read = await admin.get(`${MGMT}/identities`, { origin: 'http://evil.localhost:8080' });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('names the listed origin on answers and on errors, so the page can read them', async () => {
    const admin = new Api(tc.url);
    const login = await admin.request(
      'POST',
      `${MGMT}/authenticate?method=password`,
      { username: 'admin', password: ADMIN_PASSWORD },
      { origin: ZAC_ORIGIN },
    );
    expect(login.status).toBe(200);
    expect(login.headers.get('access-control-allow-origin')).toBe(ZAC_ORIGIN);
    const refused = await new Api(tc.url).get(`${MGMT}/identities`, { origin: ZAC_ORIGIN });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ZAC_ORIGIN);
    expect(refused.headers.get('vary')).toContain('Origin');
  });

  it('is off by default, and takes only origins', async () => {
    expect(parseControllerArgs([])).toMatchObject({ corsOrigins: [] });
    const parsed = parseControllerArgs([
      '--cors-origin',
      'https://zac.example.com:8443/',
      '--cors-origin',
      'http://localhost:4200',
    ]);
    expect(parsed).toMatchObject({ corsOrigins: ['https://zac.example.com:8443', 'http://localhost:4200'] });
    for (const bad of ['*', 'zac.example.com', 'https://zac.example.com/app', 'ftp://x.example.com'])
      expect(() => parseControllerArgs(['--cors-origin', bad])).toThrow(UsageError);
    const plain = await startTestController();
    try {
      const res = await fetch(`${plain.url}${MGMT}/identities`, {
        method: 'OPTIONS',
        headers: { origin: ZAC_ORIGIN, 'access-control-request-method': 'GET' },
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await plain.dispose();
    }
  });
});

describe('--zac', () => {
  it('serves the build’s files at /zac/', async () => {
    const js = await fetch(`${tc.url}/zac/main.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
    expect(await js.text()).toBe('console.log("zac")');
    const svg = await fetch(`${tc.url}/zac/assets/logo.svg`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('x-content-type-options')).toBe('nosniff');
    const root = await fetch(`${tc.url}/zac/`);
    expect(await root.text()).toBe(INDEX);
    const bare = await fetch(`${tc.url}/zac`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/zac/');
  });

  it('answers a client-side route of ZAC with its index, and a missing file with 404', async () => {
    for (const page of ['/zac/identities', '/zac/services/abc123', '/zac/login?x=1']) {
      const res = await fetch(`${tc.url}${page}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(INDEX);
    }
    expect((await fetch(`${tc.url}/zac/missing.js`)).status).toBe(404);
  });

  it('refuses paths that climb out of the build', async () => {
    for (const path of [
      '/zac/../postern-zac-secret.txt',
      '/zac/%2e%2e/postern-zac-secret.txt',
      '/zac/assets/%2e%2e%2f%2e%2e%2fpostern-zac-secret.txt',
      '/zac/..%5cpostern-zac-secret.txt',
    ]) {
      const res = await rawGet(path);
      expect(res.body).not.toContain('secret');
      expect([400, 404]).toContain(res.status);
    }
  });

  it('is not served without --zac, and --zac needs a folder with a build', async () => {
    const plain = await startTestController();
    try {
      expect((await fetch(`${plain.url}/zac/`)).status).toBe(404);
    } finally {
      await plain.dispose();
    }
    expect(parseControllerArgs(['--zac', zacDir])).toMatchObject({ zacDir });
    expect(() => parseControllerArgs(['--zac', join(zacDir, 'assets')])).toThrow(/index\.html/);
  });
});

describe('the controller as users run it (npm run controller)', () => {
  it('takes --zac and --cors-origin on its command line', async () => {
    const dataDir = tempDir();
    const cli = await spawnController([
      '--data-dir',
      dataDir,
      '--port',
      '0',
      '--no-router',
      '--zac',
      zacDir,
      '--cors-origin',
      ZAC_ORIGIN,
      '--cors-origin',
      'https://zac.example.com:8443',
    ]);
    try {
      expect(await (await fetch(`${cli.url}/zac/identities`)).text()).toBe(INDEX);
      const preflight = await fetch(`${cli.url}${MGMT}/services`, {
        method: 'OPTIONS',
        headers: { origin: 'https://zac.example.com:8443', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://zac.example.com:8443');
    } finally {
      await cli.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
    const bad = await runControllerCli(['--zac', join(outer, 'no-such-folder')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--zac');
  });
});
