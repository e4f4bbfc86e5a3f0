import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';
import { ResponseSchemas } from '../helpers/openapi-check.js';

let controller: TestController;
let schemas: ResponseSchemas;
let admin: Api;

beforeAll(async () => {
  controller = await startTestController();
  schemas = await ResponseSchemas.load(controller.url);
  admin = new Api(controller.url);
  await admin.login('admin', ADMIN_PASSWORD);
  await createUser(admin, 'alice', 'alice-password');
});
afterAll(() => controller.dispose());

describe('POST /authenticate?method=password', () => {
  it('returns the API session detail and the same token in the zt-session header', async () => {
    for (const prefix of [CLIENT, MGMT]) {
      const res = await new Api(controller.url).request('POST', `${prefix}/authenticate?method=password`, {
        username: 'alice',
        password: 'alice-password',
        envInfo: { os: 'linux', hostname: 'laptop' },
        sdkInfo: { type: 'postern-agent', version: '0.1.0' },
      });
      expect(res.status).toBe(200);
      schemas.assert('POST', `${prefix}/authenticate`, res);
      expect(res.headers.get('zt-session')).toBe(res.body.data.token);
      expect(Number(res.headers.get('expiration-seconds'))).toBeGreaterThan(1700);
      expect(res.body.data.identity.name).toBe('alice');
      expect(res.body.data.authQueries).toEqual([]);
      expect(res.body.data.isMfaRequired).toBe(false);
    }
  });

  it('answers a wrong password and an unknown user alike: 401 INVALID_AUTH', async () => {
    const wrong = await new Api(controller.url).login('alice', 'not-her-password', CLIENT);
    const unknown = await new Api(controller.url).login('nobody', 'whatever-pass', CLIENT);
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_AUTH');
      schemas.assert('POST', `${CLIENT}/authenticate`, res);
    }
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
  });

  it('refuses an unknown method and a missing field, naming it', async () => {
    const api = new Api(controller.url);
    const method = await api.post(`${CLIENT}/authenticate?method=cert`, {
      username: 'alice',
      password: 'alice-password',
    });
    expect(method.status).toBe(400);
    expect(method.body.error.code).toBe('INVALID_AUTH_METHOD');
    const missing = await api.post(`${CLIENT}/authenticate?method=password`, { username: 'alice' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('COULD_NOT_VALIDATE');
    expect(missing.body.error.cause.field).toBe('password');
  });

  it('rate-limits repeated wrong passwords with 429 RATE_LIMITED and Retry-After', async () => {
    await createUser(admin, 'mallory', 'mallory-password');
    const api = new Api(controller.url);
    for (let i = 0; i < 5; i++)
      expect((await api.login('mallory', `guess-${i}-xx`, CLIENT)).status).toBe(401);
    const blocked = await api.login('mallory', 'mallory-password', CLIENT);
    expect(blocked.status).toBe(429);
    expect(blocked.body.error.code).toBe('RATE_LIMITED');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The block lifts once the back-off has passed.
    const realClock = controller.ctx.clock;
    controller.ctx.clock = { now: () => new Date(Date.now() + 31_000) };
    try {
      expect((await api.login('mallory', 'mallory-password', CLIENT)).status).toBe(200);
    } finally {
      controller.ctx.clock = realClock;
    }
  });
});

describe('API sessions', () => {
  it('reads and deletes the current API session; the token then stops working', async () => {
    const api = new Api(controller.url);
    await api.login('alice', 'alice-password', CLIENT);
    const current = await api.get(`${CLIENT}/current-api-session`);
    expect(current.status).toBe(200);
    schemas.assert('GET', `${CLIENT}/current-api-session`, current);
    expect(current.body.data.token).toBe(api.token);
    const identity = await api.get(`${CLIENT}/current-identity`);
    expect(identity.status).toBe(200);
    schemas.assert('GET', `${CLIENT}/current-identity`, identity);
    expect(identity.body.data.name).toBe('alice');
    expect(identity.body.data.isAdmin).toBe(false);

    const deleted = await api.delete(`${CLIENT}/current-api-session`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: {}, meta: {} });
    const after = await api.get(`${CLIENT}/current-api-session`);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHORIZED');
  });

  it('refuses requests without a session or with a made-up token', async () => {
    const none = await new Api(controller.url).get(`${CLIENT}/current-identity`);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    expect(none.body.meta.apiVersion).toBeDefined();
    const bogus = await new Api(controller.url, 'c0ffee00-0000-4000-8000-000000000000').get(
      `${MGMT}/identities`,
    );
    expect(bogus.status).toBe(401);
  });

  it('expires a session after the inactivity timeout', async () => {
    const api = new Api(controller.url);
    await api.login('alice', 'alice-password', CLIENT);
    const realClock = controller.ctx.clock;
    controller.ctx.clock = { now: () => new Date(Date.now() + 29 * 60_000) };
    try {
      // Activity inside the window keeps it alive and moves the deadline...
      expect((await api.get(`${CLIENT}/current-api-session`)).status).toBe(200);
      controller.ctx.clock = { now: () => new Date(Date.now() + (29 + 29) * 60_000) };
      expect((await api.get(`${CLIENT}/current-api-session`)).status).toBe(200);
      // ...and 30 minutes of silence ends it.
      controller.ctx.clock = { now: () => new Date(Date.now() + (29 + 29 + 31) * 60_000) };
      expect((await api.get(`${CLIENT}/current-api-session`)).status).toBe(401);
    } finally {
      controller.ctx.clock = realClock;
    }
  });

  it('keeps the management API for administrators: a client identity gets 401', async () => {
    const api = new Api(controller.url);
    expect((await api.login('alice', 'alice-password', MGMT)).status).toBe(200);
    for (const path of [
      '/identities',
      '/services',
      '/service-policies',
      '/posture-checks',
      '/auth-policies',
      '/authenticators',
    ]) {
      const res = await api.get(`${MGMT}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    const write = await api.post(`${MGMT}/services`, { name: 'sneaky' });
    expect(write.status).toBe(401);
    expect((await admin.get(`${MGMT}/services?filter=name="sneaky"`)).body.data).toEqual([]);
  });
});
