/**
 * PUT replaces, PATCH merges, as in OpenZiti: a PUT that leaves out an optional field (role attributes,
 * tags, ...) clears it; a PATCH changes only the fields it names, and `null` clears one. A field in neither
 * Postern nor OpenZiti's definition of a body is a 400 naming it; one OpenZiti defines and Postern does not
 * use is accepted and ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT, type Api } from '../helpers/api.js';
import { PostureWorld } from '../helpers/posture-world.js';

let world: PostureWorld;
let admin: Api;
beforeAll(async () => ({ admin } = world = await PostureWorld.start()));
afterAll(() => world?.dispose());

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

describe('unknown fields', () => {
  it.each([
    ['identities', { name: 'typo-1', type: 'User', isAdmin: false, identityRole: ['#x'] }, 'identityRole'],
    [
      'service-policies',
      { name: 'typo-2', type: 'Dial', semantic: 'AnyOf', roleAttribute: ['x'], identityRoles: ['#all'] },
      'roleAttribute',
    ],
    ['posture-checks', { name: 'typo-3', typeId: 'MFA', timeout: 60 }, 'timeout'],
    ['services', { name: 'typo-4', roleAtributes: ['x'] }, 'roleAtributes'],
  ])(
    '%s: a field nobody defines is a 400 naming it, and nothing is stored',
    async (collection, body, field) => {
      const res = await admin.post(`${MGMT}/${collection}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.cause).toMatchObject({
        field,
        reason: 'is not a field of this request (check its spelling)',
      });
      const listed = await admin.get(
        `${MGMT}/${collection}?filter=${encodeURIComponent(`name = "${body.name}"`)}`,
      );
      expect(listed.body.data).toEqual([]);
    },
  );

  it('a PATCH with an unknown field is refused too, and changes nothing', async () => {
    const id = (await admin.post(`${MGMT}/services`, { name: 'typo-patch', roleAttributes: ['a'] })).body.data
      .id;
    const res = await admin.patch(`${MGMT}/services/${id}`, { roleAttributes: ['b'], rolAttributes: ['c'] });
    expect(res.status).toBe(400);
    expect((await admin.get(`${MGMT}/services/${id}`)).body.data.roleAttributes).toEqual(['a']);
  });

  it('fields OpenZiti defines and Postern does not use are accepted and ignored', async () => {
    const res = await admin.post(`${MGMT}/identities`, {
      name: 'ziti-fields',
      type: 'User',
      isAdmin: false,
      defaultHostingCost: 0,
      serviceHostingCosts: {},
      appData: { team: 'x' },
    });
    expect(res.status).toBe(201);
  });
});
