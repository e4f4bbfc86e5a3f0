/**
 * `postern-agent enroll --token FILE` as users run it (a child process) against a real controller serving
 * HTTPS on loopback with its real enrollment: an administrator creates an identity with a token, the agent
 * checks the token against the controller's published key, makes its key on this machine, trades a CSR for a
 * certificate and signs in with it; later commands sign in with the certificate, no password anywhere.
 * Tokens that are spent, expired or altered are refused in one line, the altered ones before the token is
 * sent anywhere. A `updb` token sets a password and signs in with it.
 */
import { spawn } from 'node:child_process';
import { X509Certificate, createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEnrollmentJwt } from '../../src/api/enrollment.js';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { guardedService, machineFacts } from '../helpers/agent-setup.js';
import { withoutProgress } from '../helpers/cli-progress.js';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'agent', 'cli.ts');
const dirs: string[] = [];
let controller: TestController;
let admin: Api;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function newConfigDir(): string {
  const dir = tempDir('postern-enroll-config-');
  dirs.push(dir);
  return dir;
}

/** The CLI with the 0600 file credential store in `configDir`, and no password in its environment. */
function cli(configDir: string, args: string[], env: Record<string, string> = {}, input = ''): Promise<Run> {
  const environment: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of [
    'POSTERN_PASSWORD',
    'POSTERN_USERNAME',
    'POSTERN_CONTROLLER_URL',
    'POSTERN_CREDENTIAL_STORE',
  ])
    if (!(name in env)) delete environment[name];
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, '--credential-store', 'file', '--config-dir', configDir, ...args],
      { env: environment, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdin.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let names = 0;
/** An identity in `#enrolled` created with an enrollment of `method`; its JWT as the administrator sees it. */
async function identityWithToken(
  enrollment: Record<string, unknown>,
): Promise<{ id: string; name: string; jwt: string }> {
  const name = `laptop-${process.pid}-${++names}`;
  const res = await admin.post(`${MGMT}/identities`, {
    name,
    type: 'User',
    isAdmin: false,
    roleAttributes: ['enrolled'],
    enrollment,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.data.id as string;
  const detail = (await admin.get(`${MGMT}/identities/${id}`)).body.data;
  const method = Object.keys(enrollment)[0]!;
  return { id, name, jwt: detail.enrollment[method].jwt as string };
}

function tokenFile(dir: string, jwt: string): string {
  const file = join(dir, 'laptop.jwt');
  writeFileSync(file, `${jwt}\n`);
  return file;
}

const credentialsOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as Record<string, string>;

const spki = (key: KeyObject) =>
  (key.type === 'public' ? key : createPublicKey(key)).export({ type: 'spki', format: 'der' });

/** The JWT with claims changed and its signature kept: what a tampered token looks like. */
function withClaims(jwt: string, changes: Record<string, unknown>): string {
  const [header, , signature] = jwt.split('.');
  const claims = { ...decodeEnrollmentJwt(jwt).claims, ...changes };
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
}

beforeAll(async () => {
  controller = await startTestController({ https: true });
  admin = new Api(controller.url, undefined, controller.tls!.cert);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  await guardedService(admin, 'enrolled-wiki', 'enrolled');
  await guardedService(admin, 'enrolled-os', 'enrolled', {
    typeId: 'OS',
    operatingSystems: [{ type: 'Linux', versions: [machineFacts().osRange] }],
  });
});

afterAll(async () => {
  await controller?.dispose();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe.runIf(process.platform === 'linux')('postern-agent enroll with a one-time token (ott)', () => {
  let device: { id: string; name: string; jwt: string };
  let dir: string;

  beforeAll(async () => {
    device = await identityWithToken({ ott: true });
    dir = newConfigDir();
  });

  it('enrolls from a token file: the key made here stays here, the certificate certifies it, and it signs in', async () => {
    const run = await cli(dir, ['enroll', '--token', tokenFile(dir, device.jwt)]);
    expect(withoutProgress(run.stderr)).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(
      `Enrolled ${device.name} with ${controller.url}; signed in with this device's certificate.`,
    );

    // The key: only in the 0600 credential file.
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(credentialsOf(dir)['agent-device']!) as Record<string, string>;
    expect(stored).toMatchObject({ controllerUrl: controller.url, identityId: device.id });
    const key = createPrivateKey(stored.privateKeyPem!);
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const certificates = readFileSync(join(dir, 'device-certificate.json'), 'utf8');
    expect(statSync(join(dir, 'device-certificate.json')).mode & 0o777).toBe(0o600);
    expect(certificates).not.toContain('PRIVATE KEY');

    // The certificate the controller issued (and keeps as the identity's authenticator) certifies exactly that
    // key: the CSR carried its public half, and the private half never had to leave.
    const cert = new X509Certificate((JSON.parse(certificates) as { certificatePem: string }).certificatePem);
    expect(cert.subject).toBe(`CN=${device.id}`);
    expect(spki(cert.publicKey).equals(spki(key))).toBe(true);
    const authenticator = (await admin.get(`${MGMT}/identities/${device.id}`)).body.data.authenticators.cert;
    expect(authenticator.fingerprint).toBe(createHash('sha256').update(cert.raw).digest('hex'));

    // The controller and the fingerprint the token carried are remembered, no secret.
    const settings = readFileSync(join(dir, 'agent.json'), 'utf8');
    expect(JSON.parse(settings)).toEqual({
      controllerUrl: controller.url,
      controllerFingerprint: controller.tls!.fingerprint.replace(/:/g, '').toLowerCase(),
    });
    expect(settings).not.toContain('PRIVATE');
  });

  it('later commands sign in with the certificate, with no password anywhere, and the device shows its posture', async () => {
    const services = await cli(dir, ['services', '--json']);
    expect(withoutProgress(services.stderr)).toBe('');
    expect(services.code).toBe(0);
    const access = (run: Run) =>
      (JSON.parse(run.stdout) as { name: string; access: string }[]).map((s) => [s.name, s.access]);
    expect(access(services)).toEqual([
      ['enrolled-os', 'checking'],
      ['enrolled-wiki', 'granted'],
    ]);

    const status = await cli(dir, ['status', '--json']);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      state: 'active',
      signInMethod: 'certificate',
      identityName: device.name,
      identityId: device.id,
    });
    const words = await cli(dir, ['status']);
    expect(words.stdout).toContain(`identity    ${device.name} (this device's certificate)`);

    // The device appears with its posture, and the OS check lets it through.
    const report = await cli(dir, ['report']);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/enrolled-os\s+yes/);
    const posture = await admin.get(`${MGMT}/identities/${device.id}/posture-data`);
    expect(posture.body.data.os.type).toBe('linux');
  });

  it('a new session after the old one ended is made with the certificate again', async () => {
    const sessions = await admin.get(
      `${MGMT}/api-sessions?filter=${encodeURIComponent(`identity="${device.id}"`)}`,
    );
    for (const s of sessions.body.data as { id: string }[])
      await admin.delete(`${MGMT}/api-sessions/${s.id}`);
    const run = await cli(dir, ['services']);
    expect(withoutProgress(run.stderr)).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/enrolled-wiki\s+yes/);
  });

  it('the same token a second time is refused in one line, and nothing is stored', async () => {
    const other = newConfigDir();
    const run = await cli(other, ['enroll', '--token', tokenFile(other, device.jwt)]);
    expect(run.code).toBe(4);
    expect(withoutProgress(run.stderr)).toBe(
      'postern-agent: the controller refused this enrollment token: already used\n',
    );
    expect(credentialsOf(other)['agent-device']).toBeUndefined();
    expect(existsSync(join(other, 'device-certificate.json'))).toBe(false);
  });

  it('a device already enrolled refuses a second enrollment before spending the token', async () => {
    const second = await identityWithToken({ ott: true });
    const run = await cli(dir, ['enroll', '--token', tokenFile(newConfigDir(), second.jwt)]);
    expect(run.code).toBe(1);
    expect(withoutProgress(run.stderr)).toBe(
      `postern-agent: this device is already enrolled with ${controller.url}; run \`npm run agent -- unenroll\` first\n`,
    );
    const detail = (await admin.get(`${MGMT}/identities/${second.id}`)).body.data;
    expect(detail.enrollment.ott).toBeDefined();
  });

  it('logout keeps the device identity; unenroll deletes it and signs out', async () => {
    const logout = await cli(dir, ['logout']);
    expect(logout.code).toBe(0);
    expect(logout.stdout).toContain("This device's certificate is kept");
    expect((await cli(dir, ['services'])).code).toBe(0);

    const unenroll = await cli(dir, ['unenroll']);
    expect(unenroll.code).toBe(0);
    expect(unenroll.stdout.trim()).toBe(
      `Deleted this device's identity with ${controller.url} (its key and certificate); enrolling again needs a new token.`,
    );
    expect(credentialsOf(dir)).toEqual({});
    expect(existsSync(join(dir, 'device-certificate.json'))).toBe(false);
    const after = await cli(dir, ['services']);
    expect(after.code).toBe(4);
    expect(withoutProgress(after.stderr)).toMatch(/^postern-agent: not signed in/);
  });
});

describe.runIf(process.platform === 'linux')('tokens refused before they are sent', () => {
  it('an expired token is refused without a request, saying when it expired', async () => {
    const name = `laptop-${process.pid}-${++names}`;
    const created = await admin.post(`${MGMT}/identities`, { name, type: 'User', isAdmin: false });
    // Far enough ahead that a slow machine still creates it unexpired; then wait past it.
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const enrollment = await admin.post(`${MGMT}/enrollments`, {
      method: 'ott',
      identityId: created.body.data.id,
      expiresAt,
    });
    expect(enrollment.status, JSON.stringify(enrollment.body)).toBe(201);
    const { jwt } = (await admin.get(`${MGMT}/enrollments/${enrollment.body.data.id}`)).body.data;
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 500));
    const dir = newConfigDir();
    const run = await cli(dir, ['enroll', '--token', tokenFile(dir, jwt)]);
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(
      `postern-agent: this enrollment token expired at ${new Date(Math.floor(Date.parse(expiresAt) / 1000) * 1000).toISOString()}; ask your administrator for a new one\n`,
    );
  });

  it('an altered token is refused, and the genuine one is still good afterwards', async () => {
    const { name, jwt } = await identityWithToken({ ott: true });
    const dir = newConfigDir();
    const altered = withClaims(jwt, { exp: decodeEnrollmentJwt(jwt).claims.exp + 86_400 });
    const run = await cli(dir, ['enroll', '--token', tokenFile(dir, altered)]);
    expect(run.code).toBe(4);
    expect(withoutProgress(run.stderr)).toBe(
      `postern-agent: this enrollment token's signature does not verify with the key of ${controller.url}; it was altered or not issued there\n`,
    );
    expect(existsSync(join(dir, 'credentials.json'))).toBe(false);

    // Spent, it would say "already used": it was never sent.
    const genuine = await cli(dir, ['enroll', '--token', '-'], {}, `${jwt}\n`);
    expect(withoutProgress(genuine.stderr)).toBe('');
    expect(genuine.stdout).toContain(`Enrolled ${name} with ${controller.url};`);
  });

  it('a token altered to name another controller reaches only that controller’s key set, never its enroll', async () => {
    const { jwt } = await identityWithToken({ ott: true });
    // A controller of someone else's on loopback that publishes the real key set (the worst case for us).
    const jwks = (await admin.get(`${CLIENT}/enroll/jwks`)).body;
    const requests: string[] = [];
    const impostor = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
    try {
      const dir = newConfigDir();
      const redirected = withClaims(jwt, { iss: impostorUrl });
      const run = await cli(dir, ['enroll', '--token', tokenFile(dir, redirected)]);
      expect(run.code).toBe(4);
      expect(run.stderr).toContain('signature does not verify');
      expect(requests).toEqual(['GET /edge/client/v1/enroll/jwks']);

      // Asked for one controller, a token of another is refused before any request at all.
      const mismatch = await cli(dir, [
        '--controller',
        impostorUrl,
        'enroll',
        '--token',
        tokenFile(dir, jwt),
      ]);
      expect(mismatch.code).toBe(4);
      expect(mismatch.stderr).toBe(
        `postern-agent: this enrollment token is for the controller at ${controller.url}, not ${impostorUrl}; refusing to use it\n`,
      );
      expect(requests).toHaveLength(1);
    } finally {
      impostor.close();
    }
  });

  it('what is not an enrollment token is refused in one line', async () => {
    const dir = newConfigDir();
    const file = join(dir, 'not.jwt');
    writeFileSync(file, 'hello\n');
    const run = await cli(dir, ['enroll', '--token', file]);
    expect(run.code).toBe(4);
    expect(run.stderr).toBe(
      'postern-agent: this is not an enrollment token (not a JWT: it must have three parts separated by dots)\n',
    );
    const missing = await cli(dir, ['enroll']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^postern-agent: 'enroll' needs --token FILE/);
  });

  it('a certificate token from a plain-HTTP controller is refused unspent: a certificate signs in only over TLS', async () => {
    const plain = await startTestController();
    try {
      const plainAdmin = new Api(plain.url);
      expect((await plainAdmin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
      const made = await plainAdmin.post(`${MGMT}/identities`, {
        name: 'plain-laptop',
        type: 'User',
        isAdmin: false,
        enrollment: { ott: true },
      });
      const detail = (await plainAdmin.get(`${MGMT}/identities/${made.body.data.id}`)).body.data;
      const dir = newConfigDir();
      const run = await cli(dir, ['enroll', '--token', tokenFile(dir, detail.enrollment.ott.jwt)]);
      expect(run.code).toBe(4);
      expect(withoutProgress(run.stderr)).toBe(
        `postern-agent: this token enrolls a certificate with ${plain.url}, which serves plain HTTP, where a ` +
          'certificate cannot sign in; the token was not used: ask your administrator to start the controller ' +
          'with --https and to send the token again\n',
      );
      const after = (await plainAdmin.get(`${MGMT}/identities/${made.body.data.id}`)).body.data;
      expect(after.enrollment.ott.token).toBe(detail.enrollment.ott.token);
      expect(after.authenticators).toEqual({});
    } finally {
      await plain.dispose();
    }
  });
});

describe.runIf(process.platform === 'linux')('postern-agent enroll with a password token (updb)', () => {
  it('asks for the new password twice, sends nothing when they differ, then sets it and signs in with it', async () => {
    const username = `carol-${process.pid}`;
    const { jwt } = await identityWithToken({ updb: username });
    const dir = newConfigDir();
    const file = tokenFile(dir, jwt);

    const differ = await cli(
      dir,
      ['enroll', '--token', file, '--username', username],
      {},
      'first-password\nsecond-password\n',
    );
    expect(differ.code).toBe(2);
    expect(withoutProgress(differ.stderr)).toBe(
      'postern-agent: the two passwords differ; nothing was sent\n',
    );

    const run = await cli(
      dir,
      ['enroll', '--token', file],
      {},
      `${username}\ncarol-password\ncarol-password\n`,
    );
    expect(withoutProgress(run.stderr)).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Username (from your administrator): ');
    expect(run.stdout).toContain(
      `Enrolled ${username} with ${controller.url}; signed in with the new password.`,
    );
    expect(run.stdout).not.toContain('carol-password');
    expect(JSON.parse(readFileSync(join(dir, 'agent.json'), 'utf8'))).toMatchObject({
      controllerUrl: controller.url,
      username,
    });

    // Like any password login afterwards.
    const other = newConfigDir();
    const login = await cli(
      other,
      [
        '--controller',
        controller.url,
        '--controller-fingerprint',
        controller.tls!.fingerprint,
        'login',
        username,
      ],
      { POSTERN_PASSWORD: 'carol-password' },
    );
    expect(withoutProgress(login.stderr)).toBe('');
    expect(login.code).toBe(0);

    const again = await cli(newConfigDir(), ['enroll', '--token', file, '--username', username], {
      POSTERN_PASSWORD: 'another-password',
    });
    expect(again.code).toBe(4);
    expect(withoutProgress(again.stderr)).toBe(
      'postern-agent: the controller refused this enrollment token: already used\n',
    );
  });
});
