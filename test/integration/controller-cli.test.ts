import { describe, expect, it } from 'vitest';
import { databaseFor, testBackend } from '../helpers/test-database.js';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Api, MGMT } from '../helpers/api.js';
import { runControllerCli, spawnController } from '../helpers/controller.js';
import { controllerProcessScope } from '../helpers/controller-processes.js';

const { running, newDir, start } = controllerProcessScope();

describe('npm run controller', () => {
  it('picks a free port with --port 0, binds loopback and prints the listening line', async () => {
    const p = await start(['--data-dir', newDir(), '--port', '0'], {
      POSTERN_ADMIN_PASSWORD: 'first-password',
    });
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(p.url).port)).toBeGreaterThan(0);
    const version = await new Api(p.url).get('/version');
    expect(version.status).toBe(200);
    expect(version.body.data.apiVersions['edge-management'].v1.path).toBe('/edge/management/v1');
  });

  it('generates an admin password once, prints it and stores it with mode 0600', async () => {
    const dir = newDir();
    const p = await start(['--data-dir', dir, '--port', '0'], { POSTERN_ADMIN_PASSWORD: undefined });
    const file = join(dir, 'admin-password');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const password = readFileSync(file, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(20);
    expect(p.output()).toContain(password);
    expect((await new Api(p.url).login('admin', password)).status).toBe(200);
  });

  // The SQLite file's own modes: on PostgreSQL the database is not in the folder.
  it.skipIf(testBackend() === 'postgres')(
    'makes an existing data folder and its files private: folder 0700, database, key and password 0600',
    async () => {
      const dir = newDir();
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      chmodSync(dir, 0o755);
      writeFileSync(join(dir, 'admin-password'), 'stale\n', { mode: 0o644 });
      const p = await start(['--data-dir', dir, '--port', '0'], {
        POSTERN_ADMIN_PASSWORD: 'private-password',
      });
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      for (const name of ['postern.db', 'postern.db-wal', 'admin-password'])
        if (existsSync(join(dir, name))) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o600);
      expect(existsSync(join(dir, 'postern.db'))).toBe(true);
      expect(await p.stop()).toBe(0);
    },
  );

  // One controller per SQLite file; on PostgreSQL several instances share a database by design.
  it.skipIf(testBackend() === 'postgres')(
    'refuses a second controller on the same data folder, naming the first one; a stale lock is taken over',
    async () => {
      const dir = newDir();
      const env = { POSTERN_ADMIN_PASSWORD: 'locked-password' };
      const first = await start(['--data-dir', dir, '--port', '0'], env);
      const second = await spawnController(['--data-dir', dir, '--port', '0'], env).then(
        (p) => (running.push(p), 'started'),
        (err: Error) => err.message,
      );
      expect(second).toMatch(/exited with 1/);
      expect(second).toContain(`in use by another controller (pid ${first.child.pid})`);
      // The first one still answers, and after it stops a crashed holder's lock does not block a restart.
      expect((await new Api(first.url).get('/version')).status).toBe(200);
      expect(await first.stop()).toBe(0);
      writeFileSync(join(dir, 'controller.lock'), '999999999\n');
      const third = await start(['--data-dir', dir, '--port', '0'], env);
      expect((await new Api(third.url).get('/version')).status).toBe(200);
    },
  );

  it('keeps acknowledged data across a restart and does not recreate the admin', async () => {
    const dir = newDir();
    const env = { POSTERN_ADMIN_PASSWORD: 'restart-password' };
    const first = await start(['--data-dir', dir, '--port', '0'], env);
    const admin = new Api(first.url);
    await admin.login('admin', 'restart-password');
    const created = await admin.post(`${MGMT}/services`, {
      name: 'kept-service',
      roleAttributes: ['finance'],
    });
    expect(created.status).toBe(201);
    expect(await first.stop('SIGTERM')).toBe(0);
    running.splice(running.indexOf(first), 1);

    const second = await start(['--data-dir', dir, '--port', '0'], {
      POSTERN_ADMIN_PASSWORD: 'a-different-one',
    });
    expect(second.output()).not.toContain('created admin');
    const again = new Api(second.url);
    expect((await again.login('admin', 'a-different-one')).status).toBe(401);
    expect((await again.login('admin', 'restart-password')).status).toBe(200);
    const svc = await again.get(`${MGMT}/services/${created.body.data.id}`);
    expect(svc.status).toBe(200);
    expect(svc.body.data.roleAttributes).toEqual(['finance']);
  });

  it('a first start that fails on a busy port names the generated password file, and so does every later start', async () => {
    const dir = newDir();
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((busy.address() as AddressInfo).port);
      // On the PostgreSQL run, the folder's own database, which the later start (spawnController) uses too.
      const database = await databaseFor(dir);
      const failed = await runControllerCli(['--data-dir', dir, '--port', port], {
        POSTERN_ADMIN_PASSWORD: '',
        ...(database ? { POSTERN_DATABASE_URL: database } : {}),
      });
      expect(failed.code).toBe(1);
      const file = join(dir, 'admin-password');
      expect(existsSync(file)).toBe(true);
      expect(failed.stderr).toContain(`the admin password generated at the first start is in ${file}`);
      const later = await start(['--data-dir', dir, '--port', '0'], { POSTERN_ADMIN_PASSWORD: undefined });
      expect(later.output()).toContain(`the admin password generated at the first start is in ${file}`);
      const password = readFileSync(file, 'utf8').trim();
      expect((await new Api(later.url).login('admin', password)).status).toBe(200);
    } finally {
      busy.close();
    }
  });

  it('shuts down cleanly on SIGINT', async () => {
    const p = await start(['--data-dir', newDir(), '--port', '0'], { POSTERN_ADMIN_PASSWORD: 'sigint-pass' });
    expect(await p.stop('SIGINT')).toBe(0);
    running.pop();
    expect(p.output()).toContain('SIGINT received');
  });

  it('refuses a bad option with one clear line and exit code 2', async () => {
    const result = await runControllerCli(['--port', 'eighty']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--port must be a whole number');
    const unknown = await runControllerCli(['--colour', 'blue']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--colour'");
  });

  const hasOpenssl = (() => {
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!hasOpenssl)(
    'serves HTTPS with --tls-cert/--tls-key (skipped when openssl is not installed)',
    async () => {
      const dir = newDir();
      const cert = join(dir, 'cert.pem');
      const key = join(dir, 'key.pem');
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          key,
          '-out',
          cert,
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
        ],
        { stdio: 'ignore' },
      );
      const p = await start(
        ['--data-dir', join(dir, 'data'), '--port', '0', '--tls-cert', cert, '--tls-key', key],
        {
          POSTERN_ADMIN_PASSWORD: 'tls-password',
          NODE_EXTRA_CA_CERTS: cert,
        },
      );
      expect(p.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const out = execFileSync('curl', ['-s', '--cacert', cert, `${p.url}/version`]).toString();
      expect(JSON.parse(out).data.version).toMatch(/^v\d/);
    },
  );
});
