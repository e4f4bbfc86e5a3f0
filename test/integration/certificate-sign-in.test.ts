/**
 * Certificate sign-in (`POST /authenticate?method=cert`) over real TLS, and what keeps it honest: only a
 * certificate the controller's CA issued, within its validity, belonging to a `cert` authenticator of an
 * enabled identity whose auth policy allows it, signs in; everything else is 401 INVALID_AUTH. Also the CA
 * itself (made once, key 0600, kept across restarts, never silently remade), the limit on guessing tokens,
 * and tokens kept out of the log.
 */
import { testConfig } from '../helpers/test-database.js';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { X509Certificate, createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, authPolicyBody } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { foreignCertificate, newCsr, tlsRequest, type ClientKey } from '../helpers/enrollment.js';
import { startController } from '../../controller/composition/start-controller.js';
import { CA_CERT_FILE, CA_KEY_FILE } from '../../controller/platform/keys/controller-ca.js';

let tc: TestController;
let admin: Api;
let ca: string;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

beforeAll(async () => {
  tc = await startTestController({ https: true });
  ca = tc.tls!.cert;
  admin = new Api(tc.url, undefined, ca);
  // A password sign-in over the HTTPS that asks for client certificates still works without one.
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
});
afterAll(() => tc?.dispose());

interface Enrolled {
  id: string;
  key: ClientKey;
  cert: string;
  client: { cert: string; key: string };
}

/** An identity enrolled with ott: its key and certificate, as a device would keep them. */
async function enrolled(
  extra: Record<string, unknown> = {},
  on = { url: () => tc.url, admin: () => admin, ca: () => ca },
): Promise<Enrolled> {
  const created = await on.admin().post(`${MGMT}/identities`, {
    name: unique('device'),
    type: 'Device',
    isAdmin: false,
    enrollment: { ott: true },
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as string;
  const token = (await on.admin().get(`${MGMT}/identities/${id}`)).body.data.enrollment.ott.token as string;
  const key = await newCsr();
  const res = await tlsRequest(`${on.url()}${CLIENT}/enroll?method=ott&token=${token}`, {
    ca: on.ca(),
    body: key.csrPem,
    headers: { 'content-type': 'application/x-pem-file' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const cert = res.body.data.cert as string;
  return { id, key, cert, client: { cert, key: key.keyPem } };
}

const certLogin = (client: { cert: string; key: string } | undefined, url = tc.url, trust = ca) =>
  tlsRequest(`${url}${CLIENT}/authenticate?method=cert`, { ca: trust, client, body: '{}' });

function expectRefused(res: { status: number; body: any }) {
  expect(res.status, JSON.stringify(res.body)).toBe(401);
  expect(res.body.error.code).toBe('INVALID_AUTH');
}

describe('certificate sign-in refuses', () => {
  it('a request without a client certificate', async () => {
    expectRefused(await certLogin(undefined));
  });

  it("a certificate from another CA, even one registered as an identity's authenticator", async () => {
    const device = await enrolled();
    const foreign = await foreignCertificate(device.key, device.id);
    expectRefused(await certLogin({ cert: foreign, key: device.key.keyPem }));
    // Planted straight into the store: the chain to the controller's CA is checked, not only the lookup.
    await tc.ctx.store.authenticators.create({
      id: randomUUID(),
      identityId: device.id,
      method: 'cert',
      fingerprint: createHash('sha256').update(new X509Certificate(foreign).raw).digest('hex'),
      certPem: foreign,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    expectRefused(await certLogin({ cert: foreign, key: device.key.keyPem }));
    expect((await certLogin(device.client)).status).toBe(200);
  });

  it('a revoked certificate (its authenticator deleted), and the sessions it opened end', async () => {
    const device = await enrolled();
    const login = await certLogin(device.client);
    expect(login.status).toBe(200);
    const session = new Api(tc.url, login.headers.get('zt-session')!, ca);
    expect((await session.get(`${CLIENT}/current-identity`)).status).toBe(200);
    const authenticator = (await admin.get(`${MGMT}/identities/${device.id}`)).body.data.authenticators.cert;
    expect((await admin.delete(`${MGMT}/authenticators/${authenticator.id}`)).status).toBe(200);
    expectRefused(await certLogin(device.client));
    expect((await session.get(`${CLIENT}/current-identity`)).status).toBe(401);
  });

  it("a deleted identity's certificate, and the identity's enrollments went with it", async () => {
    const device = await enrolled();
    const later = await admin.post(`${MGMT}/enrollments`, {
      method: 'updb',
      identityId: device.id,
      username: unique('u'),
    });
    expect(later.status).toBe(201);
    const token = (await admin.get(`${MGMT}/enrollments/${later.body.data.id}`)).body.data.token as string;
    expect((await admin.delete(`${MGMT}/identities/${device.id}`)).status).toBe(200);
    expectRefused(await certLogin(device.client));
    expect((await admin.get(`${MGMT}/enrollments/${later.body.data.id}`)).status).toBe(404);
    const redeemed = await tlsRequest(`${tc.url}${CLIENT}/enroll?token=${token}`, {
      ca,
      body: JSON.stringify({ password: 'some-password' }),
    });
    expect(redeemed.status).toBe(400);
    expect(redeemed.body.error.cause.reason).toBe('unknown');
  });

  it('a disabled identity, until it is enabled again', async () => {
    const device = await enrolled();
    expect((await admin.patch(`${MGMT}/identities/${device.id}`, { disabled: true })).status).toBe(200);
    expectRefused(await certLogin(device.client));
    expect((await admin.patch(`${MGMT}/identities/${device.id}`, { disabled: false })).status).toBe(200);
    expect((await certLogin(device.client)).status).toBe(200);
  });

  it('a certificate past its validity (or before it)', async () => {
    const device = await enrolled();
    const realClock = tc.ctx.clock;
    try {
      tc.ctx.clock = { now: () => new Date(Date.now() + 366 * 24 * 3600_000) };
      expectRefused(await certLogin(device.client));
      tc.ctx.clock = { now: () => new Date(Date.now() - 3600_000) };
      expectRefused(await certLogin(device.client));
    } finally {
      tc.ctx.clock = realClock;
    }
    expect((await certLogin(device.client)).status).toBe(200);
  });

  it('an identity whose auth policy does not allow certificates; one that requires TOTP signs in partially', async () => {
    const noCert = await admin.post(`${MGMT}/auth-policies`, authPolicyBody(unique('no-cert'), false));
    const device = await enrolled({ authPolicyId: noCert.body.data.id });
    expectRefused(await certLogin(device.client));

    const totp = authPolicyBody(unique('cert-totp'), true);
    totp.primary.cert.allowed = true;
    const policy = await admin.post(`${MGMT}/auth-policies`, totp);
    const strict = await enrolled({ authPolicyId: policy.body.data.id });
    const partial = await certLogin(strict.client);
    expect(partial.status).toBe(200);
    expect(partial.body.data.authQueries.map((q: { typeId: string }) => q.typeId)).toEqual(['MFA']);
    const session = new Api(tc.url, partial.headers.get('zt-session')!, ca);
    expect((await session.get(`${CLIENT}/services`)).status).toBe(401);
  });
});

describe('over plain HTTP', () => {
  it('certificate sign-in says it needs HTTPS', async () => {
    const plain = await startTestController();
    try {
      const res = await new Api(plain.url).post(`${CLIENT}/authenticate?method=cert`, {});
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_AUTH_METHOD', cause: { field: 'method' } });
      expect(res.body.error.message).toContain('HTTPS');
    } finally {
      await plain.dispose();
    }
  });
});

describe('the controller CA', () => {
  it('is made on the first start (key 0600), kept across restarts, and never remade under issued certificates', async () => {
    const dataDir = tempDir();
    const config = await testConfig(dataDir, { https: true });
    try {
      let running = await startController(config, { adminPassword: ADMIN_PASSWORD });
      const keyFile = join(dataDir, CA_KEY_FILE);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, CA_CERT_FILE)).mode & 0o777).toBe(0o600);
      const on = {
        url: () => running.url,
        ca: () => running.tls!.cert,
        admin: () => second,
      };
      let second = new Api(running.url, undefined, running.tls!.cert);
      expect((await second.login('admin', ADMIN_PASSWORD)).status).toBe(200);
      const device = await enrolled({}, on);
      const jwks = async () =>
        (await tlsRequest(`${running.url}${CLIENT}/enroll/jwks`, { ca: running.tls!.cert, method: 'GET' }))
          .body.keys[0].kid;
      const kid = await jwks();
      await running.close();

      running = await startController({ ...config }, { adminPassword: ADMIN_PASSWORD });
      second = new Api(running.url, undefined, running.tls!.cert);
      expect(await jwks()).toBe(kid);
      expect((await certLogin(device.client, running.url, running.tls!.cert)).status).toBe(200);
      await running.close();

      rmSync(keyFile);
      await expect(startController(config, { adminPassword: ADMIN_PASSWORD })).rejects.toThrow(
        /restore both from a backup/,
      );
      expect(existsSync(keyFile)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('tokens', () => {
  it('wrong tokens from one address are limited: then even a good one waits (429, Retry-After)', async () => {
    const limited = await startTestController({ https: true, loginMaxFailuresPerAddress: 3 });
    try {
      const limitedAdmin = new Api(limited.url, undefined, limited.tls!.cert);
      expect((await limitedAdmin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
      const created = await limitedAdmin.post(`${MGMT}/identities`, {
        name: 'limited',
        type: 'User',
        isAdmin: false,
        enrollment: { ott: true },
      });
      const token = (await limitedAdmin.get(`${MGMT}/identities/${created.body.data.id}`)).body.data
        .enrollment.ott.token;
      const csr = (await newCsr()).csrPem;
      const post = (t: string) =>
        tlsRequest(`${limited.url}${CLIENT}/enroll?method=ott&token=${t}`, {
          ca: limited.tls!.cert,
          body: csr,
          headers: { 'content-type': 'application/x-pem-file' },
        });
      for (let i = 0; i < 3; i++) expect((await post(randomUUID())).status).toBe(400);
      const blocked = await post(token);
      expect(blocked.status).toBe(429);
      expect(blocked.body.error.code).toBe('RATE_LIMITED');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      // Refused while blocked, the token was not spent.
      expect(
        (await limitedAdmin.get(`${MGMT}/identities/${created.body.data.id}`)).body.data.enrollment.ott,
      ).toBeDefined();
    } finally {
      await limited.dispose();
    }
  });

  it('never reach the log, neither the token in the URL nor the JWT', async () => {
    const dataDir = tempDir();
    const log = new PassThrough();
    let output = '';
    log.on('data', (c: Buffer) => (output += c.toString()));
    const running = await startController(await testConfig(dataDir, { logLevel: 'trace', https: true }), {
      adminPassword: ADMIN_PASSWORD,
      logDestination: log,
    });
    try {
      const logged = new Api(running.url, undefined, running.tls!.cert);
      expect((await logged.login('admin', ADMIN_PASSWORD)).status).toBe(200);
      const device = await enrolled(
        {},
        { url: () => running.url, ca: () => running.tls!.cert, admin: () => logged },
      );
      const ott = (await logged.get(`${MGMT}/identities/${device.id}`)).body.data;
      expect(ott.enrollment).toEqual({});
      const updb = await logged.post(`${MGMT}/enrollments`, {
        method: 'updb',
        identityId: device.id,
        username: 'logged-user',
      });
      const shown = (await logged.get(`${MGMT}/enrollments/${updb.body.data.id}`)).body.data;
      const res = await tlsRequest(`${running.url}${CLIENT}/enroll?method=updb&token=${shown.token}`, {
        ca: running.tls!.cert,
        body: JSON.stringify({ password: 'logged-password' }),
      });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain('identity enrolled');
      expect(output).toContain('token=[redacted]');
      expect(output).not.toContain(shown.token);
      expect(output).not.toContain(shown.jwt.split('.')[1]);
      expect(output).not.toContain('logged-password');
    } finally {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("an identity's sign-in methods", () => {
  it('lists its certificate logins with when each certificate expires', async () => {
    const device = await enrolled();
    const res = await admin.get(`${MGMT}/identities/${device.id}/authenticators`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.meta.pagination.totalCount).toBe(1);
    const [login] = res.body.data;
    const issued = new X509Certificate(device.cert);
    expect(login).toMatchObject({
      method: 'cert',
      identityId: device.id,
      fingerprint: createHash('sha256').update(issued.raw).digest('hex'),
      expiresAt: new Date(issued.validTo).toISOString(),
    });
  });

  it('answers 404 for an identity that does not exist', async () => {
    const res = await admin.get(`${MGMT}/identities/no-such-identity/authenticators`);
    expect(res.status).toBe(404);
  });
});
