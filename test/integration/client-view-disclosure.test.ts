/**
 * What the client API shows a signed-in identity about itself and its services, against a real controller
 * (both stores): its own outstanding enrollment as `{method, expiresAt}` only, never the token or JWT (a
 * stolen API session would otherwise become a certificate login that outlives the password reset); and of a
 * service's configs only the types its permission needs (Dial: `intercept.v1`; Bind: `host.v1`, the backend's
 * internal address). The administrator still sees everything on the management API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { adminApi } from '../helpers/agent-setup.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;

beforeAll(async () => {
  tc = await startTestController();
  admin = await adminApi(tc.url);
});
afterAll(async () => {
  await tc?.dispose();
});

async function created(path: string, body: Record<string, unknown>): Promise<string> {
  const res = await admin.post(`${MGMT}${path}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id as string;
}

async function signedIn(name: string, roleAttributes: string[] = []): Promise<{ id: string; api: Api }> {
  const id = await createUser(admin, name, `${name}-password`, { roleAttributes });
  const api = new Api(tc.url);
  expect((await api.login(name, `${name}-password`, CLIENT)).status).toBe(200);
  return { id, api };
}

describe('the client API shows an identity its own enrollment without secrets', () => {
  it('current-identity answers {method, expiresAt}; the management API keeps the token and JWT', async () => {
    const { id, api } = await signedIn('enrollment-viewer');
    await created('/enrollments', { method: 'ott', identityId: id });
    const managed = (await admin.get(`${MGMT}/identities/${id}`)).body.data.enrollment.ott;
    expect(managed.token).toMatch(/\S{16,}/);
    expect(managed.jwt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const own = await api.get(`${CLIENT}/current-identity`);
    expect(own.status).toBe(200);
    expect(own.body.data.enrollment).toEqual({ ott: { method: 'ott', expiresAt: managed.expiresAt } });
    const wire = JSON.stringify(own.body);
    expect(wire).not.toContain(managed.token);
    expect(wire).not.toContain(managed.jwt);
    expect(wire).not.toContain(managed.id);

    // An administrator's own current identity on the management API is the management view.
    const adminId = (await admin.get(`${MGMT}/current-identity`)).body.data.id as string;
    await created('/enrollments', { method: 'ott', identityId: adminId });
    const adminOwn = await admin.get(`${MGMT}/current-identity`);
    expect(adminOwn.body.data.enrollment.ott.token).toMatch(/\S{16,}/);
    // ...and on the client API, the client view.
    const adminAsClient = new Api(tc.url);
    expect((await adminAsClient.login('admin', ADMIN_PASSWORD, CLIENT)).status).toBe(200);
    const adminClientView = await adminAsClient.get(`${CLIENT}/current-identity`);
    expect(adminClientView.body.data.enrollment.ott).toEqual({
      method: 'ott',
      expiresAt: adminOwn.body.data.enrollment.ott.expiresAt,
    });
  });
});

describe("a service's configs go to the clients whose permission needs them", () => {
  const ROLE = 'config-readers';
  const BACKEND = '10.77.0.12';
  let serviceId: string;

  beforeAll(async () => {
    const intercept = await created('/configs', {
      name: 'disclosure-intercept',
      configTypeId: 'intercept.v1',
      data: { protocols: ['tcp'], addresses: ['disclosure.internal'], portRanges: [{ low: 443, high: 443 }] },
    });
    const host = await created('/configs', {
      name: 'disclosure-host',
      configTypeId: 'host.v1',
      data: { protocol: 'tcp', address: BACKEND, port: 8443 },
    });
    serviceId = await created('/services', { name: 'disclosure-svc', configs: [intercept, host] });
    for (const type of ['Dial', 'Bind'])
      await created('/service-policies', {
        name: `disclosure-${type}`,
        type,
        semantic: 'AnyOf',
        identityRoles: [`#${ROLE}-${type.toLowerCase()}`],
        serviceRoles: [`@${serviceId}`],
        postureCheckRoles: [],
      });
  });

  /** The `config` map the caller gets for the service, from the list and from the detail. */
  async function configSeenBy(api: Api, query: string): Promise<Record<string, unknown>[]> {
    const listed = await api.get(`${CLIENT}/services?${query}`);
    const detail = await api.get(`${CLIENT}/services/${serviceId}?${query}`);
    expect([listed.status, detail.status]).toEqual([200, 200]);
    const fromList = (listed.body.data as { id: string; config: Record<string, unknown> }[]).find(
      (s) => s.id === serviceId,
    );
    return [fromList!.config, detail.body.data.config];
  }

  it('a Dial-only client gets intercept.v1 and never host.v1, even asking for it or for all', async () => {
    const { api } = await signedIn('dial-only', [`${ROLE}-dial`]);
    for (const query of ['configTypes=all', 'configTypes=host.v1,intercept.v1', 'configTypes=NH5p4FpGR'])
      for (const config of await configSeenBy(api, query)) {
        expect(Object.keys(config)).not.toContain('host.v1');
        expect(JSON.stringify(config)).not.toContain(BACKEND);
      }
    for (const config of await configSeenBy(api, 'configTypes=all'))
      expect(Object.keys(config)).toEqual(['intercept.v1']);
  });

  it('a Bind-only client gets host.v1, not intercept.v1', async () => {
    const { api } = await signedIn('bind-only', [`${ROLE}-bind`]);
    for (const config of await configSeenBy(api, 'configTypes=all'))
      expect(config).toEqual({ 'host.v1': { protocol: 'tcp', address: BACKEND, port: 8443 } });
  });

  it('a client with both permissions gets both; the administrator sees both configs', async () => {
    const { api } = await signedIn('dial-and-bind', [`${ROLE}-dial`, `${ROLE}-bind`]);
    for (const config of await configSeenBy(api, 'configTypes=all'))
      expect(Object.keys(config).sort()).toEqual(['host.v1', 'intercept.v1']);
    const managed = await admin.get(`${MGMT}/services/${serviceId}`);
    expect(managed.body.data.configs).toHaveLength(2);
  });
});
