import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { testBackend } from '../helpers/test-database.js';
import { testConfig } from '../helpers/test-database.js';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestController, tempDir, type TestController } from '../helpers/controller.js';
import { startController } from '../../controller/composition/start-controller.js';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import type { ResponseSchemas } from '../helpers/openapi-check.js';
import {
  FakeClock,
  enrollVerified,
  startEnrollment,
  startMfaTestbed,
  type MfaTestbed,
} from '../helpers/mfa.js';

/**
 * Secrets at rest: the TOTP secret and the recovery codes never reach the SQLite file or its WAL in
 * clear, the key lives outside the database (master.key, mode 0600, or POSTERN_MASTER_KEY), and the
 * audit log records what happened without any code in it.
 */
const MFA = `${CLIENT}/current-identity/mfa`;

function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}

/** The raw bytes of the database file and its write-ahead log, as a thief with a copy would have them. */
function databaseBytes(dataDir: string): Buffer {
  const files = ['postern.db', 'postern.db-wal'].map((f) => join(dataDir, f)).filter((f) => existsSync(f));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

/** Every form a secret or code could be written in. */
function forms(secret: string, codes: string[]): Buffer[] {
  const raw = base32Decode(secret);
  return [
    Buffer.from(secret),
    Buffer.from(secret.toLowerCase()),
    raw,
    Buffer.from(raw.toString('hex')),
    Buffer.from(raw.toString('base64')),
    ...codes.flatMap((c) => [Buffer.from(c), Buffer.from(c.replaceAll('-', ''))]),
  ];
}

describe('with master.key in the data dir', () => {
  let tc: TestController;
  let admin: Api;
  let clock: FakeClock;
  let schemas: ResponseSchemas;
  let newUser: MfaTestbed['newUser'];

  beforeAll(async () => ({ tc, admin, clock, schemas, newUser } = await startMfaTestbed()));
  afterAll(() => tc.dispose());
  beforeEach(() => clock.advance(6 * 60_000));

  // Reads the SQLite file and its WAL byte by byte; PostgreSQL stores the same sealed bytes through the same code.
  it.skipIf(testBackend() === 'postgres')(
    'keeps the secret and every recovery code out of the SQLite file and its WAL',
    async () => {
      const { api } = await newUser('at-rest-user');
      const { app, recoveryCodes } = await startEnrollment(api);
      const bytes = databaseBytes(tc.dataDir);
      // positive control: what is stored in clear is found, so a clear secret would be too
      expect(bytes.includes(Buffer.from('at-rest-user'))).toBe(true);
      for (const form of forms(app.secret, recoveryCodes))
        expect(bytes.includes(form), form.toString()).toBe(false);

      expect((await api.post(`${MFA}/verify`, { code: await app.code(clock.now()) })).status).toBe(200);
      clock.nextStep();
      const regenerated = await api.post(`${MFA}/recovery-codes`, { code: await app.code(clock.now()) });
      const fresh: string[] = regenerated.body.data.recoveryCodes;
      const after = databaseBytes(tc.dataDir);
      for (const form of forms(app.secret, [...recoveryCodes, ...fresh]))
        expect(after.includes(form), form.toString()).toBe(false);

      const keyFile = join(tc.dataDir, 'master.key');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(readFileSync(keyFile)).toHaveLength(32);
    },
  );

  it('audits enrollment, verification, failures, recovery-code use and removal without any code', async () => {
    const { id, api } = await newUser('audited');
    const { app, recoveryCodes } = await enrollVerified(api, clock);
    const partial = new Api(tc.url);
    await partial.login('audited', 'password-1', CLIENT);
    expect((await partial.post(`${CLIENT}/authenticate/mfa`, { code: 'WRONG-CODE-0' })).status).toBe(400);
    expect((await partial.post(`${CLIENT}/authenticate/mfa`, { code: recoveryCodes[0] })).status).toBe(200);
    // read before the reset, which ends the identity's sessions
    const partialSessionId = (await partial.get(`${CLIENT}/current-api-session`)).body.data.id;
    expect((await admin.delete(`${MGMT}/identities/${id}/mfa`)).status).toBe(200);

    let res = await admin.get(`${MGMT}/identities/${id}/mfa-audit-events?limit=20`);
    expect(res.status).toBe(200);
    schemas.assert('GET', `${MGMT}/identities/{id}/mfa-audit-events`, res);
    const trail = (res.body.data as Record<string, unknown>[])
      .reverse()
      .map((e) => [e.eventType, e.outcome, e.factor, e.reason]);
    expect(trail).toEqual([
      ['enroll', 'success', null, null],
      ['verify', 'success', 'totp', null],
      ['authenticate', 'failure', null, 'invalid-code'],
      ['authenticate', 'success', 'recovery-code', null],
      ['admin-remove', 'success', null, null],
    ]);
    const removal = res.body.data.at(-1);
    expect(removal.actorIdentityId).not.toBe(id);
    expect(removal.sourceIp).toBe('127.0.0.1');
    expect(res.body.data[2].apiSessionId).toBe(partialSessionId);
    const text = JSON.stringify(res.body);
    for (const secret of [app.secret, ...recoveryCodes, ...recoveryCodes.map((c) => c.replaceAll('-', ''))]) {
      expect(text).not.toContain(secret);
    }

    res = await admin.get(
      `${MGMT}/mfa-audit-events?filter=${encodeURIComponent(`identityId = "${id}" and outcome = "failure"`)}`,
    );
    schemas.assert('GET', `${MGMT}/mfa-audit-events`, res);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.meta.pagination.totalCount).toBe(1);
    res = await admin.get(
      `${MGMT}/mfa-audit-events?limit=2&filter=${encodeURIComponent(`identityId = "${id}"`)}`,
    );
    expect(res.body.data).toHaveLength(2);
    expect(res.body.meta.pagination).toEqual({ limit: 2, offset: 0, totalCount: 5 });
    // OpenZiti's "every row", on both stores (a negative LIMIT reached PostgreSQL once, a 500).
    for (const path of [`${MGMT}/identities/${id}/mfa-audit-events`, `${MGMT}/mfa-audit-events`]) {
      res = await admin.get(`${path}?limit=-1`);
      expect(res.status).toBe(200);
      expect(res.body.meta.pagination).toMatchObject({ limit: 500, offset: 0 });
    }

    res = await admin.get(`${MGMT}/mfa-audit-events?filter=${encodeURIComponent('secret = "x"')}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_FILTER');
    schemas.assert('GET', `${MGMT}/mfa-audit-events`, res);
    expect((await admin.get(`${MGMT}/identities/nobody/mfa-audit-events`)).status).toBe(404);
    expect((await api.get(`${MGMT}/mfa-audit-events`)).status).toBe(401);
  });

  it('keeps working across a restart with the same key file', async () => {
    const { api } = await newUser('restarted');
    const { recoveryCodes } = await enrollVerified(api, clock);
    await tc.close();
    tc = await startTestController({ dataDir: tc.dataDir });
    clock = new FakeClock(tc.ctx, clock.now());
    admin = new Api(tc.url);
    await admin.login('admin', ADMIN_PASSWORD);
    const again = new Api(tc.url);
    await again.login('restarted', 'password-1', CLIENT);
    expect((await again.post(`${CLIENT}/authenticate/mfa`, { code: recoveryCodes[1] })).status).toBe(200);
  });

  it('refuses to start when secrets are stored and master.key is missing or another key, and makes none', async () => {
    await createUser(admin, 'key-checked', 'password-1');
    const api = new Api(tc.url);
    await api.login('key-checked', 'password-1', CLIENT);
    await enrollVerified(api, clock);
    const keyFile = join(tc.dataDir, 'master.key');
    const original = readFileSync(keyFile);
    await tc.close();
    try {
      rmSync(keyFile);
      await expect(startTestController({ dataDir: tc.dataDir })).rejects.toThrow(
        /master key .*master\.key is missing; restore it from a backup/,
      );
      expect(existsSync(keyFile), 'no new key over existing secrets').toBe(false);
      writeFileSync(keyFile, randomBytes(32), { mode: 0o600 });
      await expect(startTestController({ dataDir: tc.dataDir })).rejects.toThrow(
        /does not open the MFA secrets stored in the database/,
      );
    } finally {
      writeFileSync(keyFile, original, { mode: 0o600 });
      tc = await startTestController({ dataDir: tc.dataDir });
      clock = new FakeClock(tc.ctx, clock.now());
      admin = new Api(tc.url);
      await admin.login('admin', ADMIN_PASSWORD);
    }
  });
});

describe('with POSTERN_MASTER_KEY', () => {
  it('uses the environment key and writes no key file', async () => {
    const dataDir = tempDir();
    process.env.POSTERN_MASTER_KEY = randomBytes(32).toString('base64');
    let tc: TestController | undefined;
    try {
      tc = await startTestController({ dataDir });
      const admin = new Api(tc.url);
      await admin.login('admin', ADMIN_PASSWORD);
      await createUser(admin, 'env-keyed', 'password-1');
      const api = new Api(tc.url);
      await api.login('env-keyed', 'password-1', CLIENT);
      const { app } = await startEnrollment(api);
      expect((await api.get(MFA)).body.data.provisioningUrl).toContain(app.secret);
      expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    } finally {
      delete process.env.POSTERN_MASTER_KEY;
      await tc?.dispose();
    }
  });

  it('refuses to start with a key that is not 32 bytes', async () => {
    process.env.POSTERN_MASTER_KEY = 'too-short';
    try {
      await expect(startTestController()).rejects.toThrow(/POSTERN_MASTER_KEY must be 32 bytes/);
    } finally {
      delete process.env.POSTERN_MASTER_KEY;
    }
  });
});

describe('logs', () => {
  it('hold no secret and no code, even at trace level', async () => {
    const dataDir = tempDir();
    const sink = new PassThrough();
    let log = '';
    sink.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const running = await startController(await testConfig(dataDir, { logLevel: 'trace' }), {
      adminPassword: ADMIN_PASSWORD,
      logDestination: sink,
    });
    try {
      const clock = new FakeClock(running.ctx);
      const admin = new Api(running.url);
      await admin.login('admin', ADMIN_PASSWORD);
      await createUser(admin, 'logged', 'password-1');
      const api = new Api(running.url);
      await api.login('logged', 'password-1', CLIENT);
      const { app, recoveryCodes } = await enrollVerified(api, clock);
      const partial = new Api(running.url);
      await partial.login('logged', 'password-1', CLIENT);
      await partial.post(`${CLIENT}/authenticate/mfa`, { code: recoveryCodes[0] });
      await partial.get(`${MFA}/recovery-codes`, { 'mfa-validation-code': recoveryCodes[1]! });
      clock.nextStep();
      const last = await app.code(clock.now());
      expect((await api.delete(MFA, undefined, { 'mfa-validation-code': last })).status).toBe(200);

      expect(log).toContain('/current-identity/mfa');
      for (const secret of [
        app.secret,
        last,
        ...recoveryCodes,
        ...recoveryCodes.map((c) => c.replaceAll('-', '')),
      ]) {
        expect(log).not.toContain(secret);
      }
    } finally {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
