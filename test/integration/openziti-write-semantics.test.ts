/**
 * PUT replaces, PATCH merges, as in OpenZiti: a PUT that leaves out an optional field (role attributes,
 * tags, ...) clears it; a PATCH changes only the fields it names, and `null` clears one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;
beforeAll(async () => {
  tc = await startTestController();
  admin = new Api(tc.url);
  await admin.login('admin', ADMIN_PASSWORD);
});
afterAll(() => tc?.dispose());

const CASES = [
  {
    collection: 'identities',
    create: { name: 'put-id', type: 'Device', isAdmin: false, roleAttributes: ['sales'], tags: { a: 1 } },
    put: { name: 'put-id-2', type: 'Device', isAdmin: false },
  },
  {
    collection: 'services',
    create: { name: 'put-svc', roleAttributes: ['sales'], tags: { a: 1 } },
    put: { name: 'put-svc-2' },
  },
  {
    collection: 'posture-checks',
    create: {
      name: 'put-check',
      typeId: 'MAC',
      macAddresses: ['aa:bb:cc:dd:ee:ff'],
      roleAttributes: ['sales'],
      tags: { a: 1 },
    },
    put: { name: 'put-check-2', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
  },
];

describe('PUT replaces, PATCH merges', () => {
  for (const c of CASES) {
    it(`${c.collection}: a PUT without roleAttributes and tags clears them`, async () => {
      const id = (await admin.post(`${MGMT}/${c.collection}`, c.create)).body.data.id as string;
      expect((await admin.put(`${MGMT}/${c.collection}/${id}`, c.put)).status).toBe(200);
      const after = (await admin.get(`${MGMT}/${c.collection}/${id}`)).body.data;
      expect(after.name).toBe(c.put.name);
      expect(after.roleAttributes ?? []).toEqual([]);
      expect(after.tags).toEqual({});
    });

    it(`${c.collection}: a PATCH changes only what it names; null clears`, async () => {
      const body = { ...c.create, name: `${c.create.name}-patch` };
      const id = (await admin.post(`${MGMT}/${c.collection}`, body)).body.data.id as string;
      expect((await admin.patch(`${MGMT}/${c.collection}/${id}`, { name: `${body.name}-2` })).status).toBe(
        200,
      );
      let after = (await admin.get(`${MGMT}/${c.collection}/${id}`)).body.data;
      expect(after.roleAttributes).toEqual(['sales']);
      expect(after.tags).toEqual({ a: 1 });
      expect((await admin.patch(`${MGMT}/${c.collection}/${id}`, { tags: null })).status).toBe(200);
      after = (await admin.get(`${MGMT}/${c.collection}/${id}`)).body.data;
      expect(after.tags).toEqual({});
      expect(after.roleAttributes).toEqual(['sales']);
    });
  }

  it('service policies: a PUT without postureCheckRoles clears them', async () => {
    const create = {
      name: 'put-policy',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#a'],
      serviceRoles: ['#b'],
      postureCheckRoles: ['#c'],
      tags: { a: 1 },
    };
    const id = (await admin.post(`${MGMT}/service-policies`, create)).body.data.id as string;
    const put = {
      name: 'put-policy',
      type: 'Dial',
      semantic: 'AnyOf',
      identityRoles: ['#a'],
      serviceRoles: ['#b'],
    };
    expect((await admin.put(`${MGMT}/service-policies/${id}`, put)).status).toBe(200);
    const after = (await admin.get(`${MGMT}/service-policies/${id}`)).body.data;
    expect(after.postureCheckRoles ?? []).toEqual([]);
    expect(after.tags).toEqual({});
  });
});
