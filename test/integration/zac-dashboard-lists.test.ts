/**
 * ZAC's dashboard and the lists it reads (issue 30 item 5): `GET /summary` with OpenZiti's counts under
 * OpenZiti's names, a `limit` above the maximum clamped as OpenZiti's controller clamps it (a full page, not a
 * refusal: ZAC asks for `limit=1000`), and OpenZiti's empty list envelope for what Postern has none of.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
const admin = () => new Api(tc.url, token);
let token = '';

beforeAll(async () => {
  tc = await startTestController();
  const api = new Api(tc.url);
  await api.login('admin', ADMIN_PASSWORD);
  token = api.token!;
});
afterAll(() => tc?.dispose());

describe('GET /summary', () => {
  it('counts each entity under OpenZiti’s name, and follows what is created', async () => {
    const before = (await admin().get(`${MGMT}/summary`)).body.data;
    for (const key of [
      'identities',
      'services',
      'configs',
      'configTypes',
      'servicePolicies',
      'postureChecks',
      'routers',
      'routers.edge',
      'apiSessions',
      'sessions',
      'terminators',
      'cas',
      'externalJwtSigners',
    ])
      expect(typeof before[key], key).toBe('number');
    expect(before.apiSessions).toBeGreaterThanOrEqual(1);
    await admin().post(`${MGMT}/identities`, { name: 'summary-user', type: 'User', isAdmin: false });
    await admin().post(`${MGMT}/services`, { name: 'summary-svc' });
    await admin().post(`${MGMT}/services`, { name: 'summary-svc-2' });
    await admin().post(`${MGMT}/edge-routers`, { name: 'summary-router' });
    const after = (await admin().get(`${MGMT}/summary`)).body.data;
    expect(after.identities).toBe(before.identities + 1);
    expect(after.services).toBe(before.services + 2);
    expect(after['routers.edge']).toBe(before['routers.edge'] + 1);
    expect(after.routers).toBe(after['routers.edge']);
  });

  it('is for administrators', async () => {
    expect((await new Api(tc.url).get(`${MGMT}/summary`)).status).toBe(401);
  });
});

describe('limit above the maximum', () => {
  it('is a full page of 500, as OpenZiti clamps it, on every list', async () => {
    for (let i = 0; i < 12; i++) await admin().post(`${MGMT}/services`, { name: `clamp-${i}` });
    for (const path of [
      'services',
      'identities',
      'service-policies',
      'configs',
      'config-types',
      'edge-routers',
      'posture-checks',
      'sessions',
      'api-sessions',
      'terminators',
    ]) {
      const res = await admin().get(`${MGMT}/${path}?limit=1000&offset=0`);
      expect(res.status, path).toBe(200);
      expect(res.body.meta.pagination.limit, path).toBe(500);
    }
    const services = await admin().get(`${MGMT}/services?limit=1000`);
    expect(services.body.data.length).toBe(services.body.meta.pagination.totalCount);
    // a filter's own `limit` is clamped the same way
    const inFilter = await admin().get(
      `${MGMT}/services?filter=${encodeURIComponent('name contains "clamp-" limit 1000')}`,
    );
    expect(inFilter.status).toBe(200);
    expect(inFilter.body.data.length).toBe(12);
  });

  it('below -1, or not a number, is still refused naming the field', async () => {
    for (const bad of ['-2', 'many']) {
      const res = await admin().get(`${MGMT}/services?limit=${bad}`);
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.error)).toContain('limit');
    }
  });
});

describe('what Postern has none of: OpenZiti’s empty list', () => {
  const paths = [
    `${MGMT}/terminators`,
    `${MGMT}/cas`,
    `${MGMT}/external-jwt-signers`,
    `${MGMT}/network-jwts`,
    '/fabric/v1/routers',
    '/fabric/v1/links',
    '/fabric/v1/circuits',
    '/fabric/v1/terminators',
  ];

  it('answers each with an empty page in the envelope, to administrators only', async () => {
    for (const path of paths) {
      const res = await admin().get(`${path}?limit=1000&offset=0&sort=name asc`);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual({
        data: [],
        meta: { pagination: { limit: 500, offset: 0, totalCount: 0 }, filterableFields: ['id', 'name'] },
      });
      const anonymous = await new Api(tc.url).get(path);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.body.error.code, path).toBe('UNAUTHORIZED');
    }
  });

  it('refuses a bad page as every list does', async () => {
    const res = await admin().get(`${MGMT}/cas?offset=-1`);
    expect(res.status).toBe(400);
  });
});
