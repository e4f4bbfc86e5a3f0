/**
 * Deleting what a service policy names by `@id` is refused with the policies named (it used to answer 200
 * and leave the policy without its posture check: access failed open); with `?cascade=true` the reference
 * is removed from the policies too. Nothing changes on a refusal.
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
afterAll(() => tc.dispose());

const create = async (collection: string, body: Record<string, unknown>) => {
  const res = await admin.post(`${MGMT}/${collection}`, body);
  expect(res.status).toBe(201);
  return res.body.data.id as string;
};

describe('deleting what a policy names', () => {
  it.each([
    ['posture-checks', 'postureCheckRoles', 'posture check'],
    ['services', 'serviceRoles', 'service'],
    ['identities', 'identityRoles', 'identity'],
  ] as const)(
    '%s: 409 naming the policy, then ?cascade=true removes it from the policy',
    async (collection, field, what) => {
      const name = `ref-${collection}`;
      const id = await create(
        collection,
        collection === 'posture-checks'
          ? { name, typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['>=5.0.0'] }] }
          : collection === 'services'
            ? { name }
            : { name, type: 'User', isAdmin: false },
      );
      const policyId = await create('service-policies', {
        name: `${name}-policy`,
        type: 'Dial',
        semantic: 'AnyOf',
        identityRoles: ['#staff'],
        serviceRoles: ['#apps'],
        postureCheckRoles: [],
        [field]: [`@${id}`, '#kept'],
      });

      const refused = await admin.delete(`${MGMT}/${collection}/${id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('CAN_NOT_DELETE_REFERENCED_ENTITY');
      expect(refused.body.error.message).toContain(
        `The ${what} '${name}' is named by the service policy '${name}-policy'`,
      );
      expect(refused.body.error.cause.referrers).toEqual([
        { id: policyId, name: `${name}-policy`, entity: 'service-policies' },
      ]);
      expect((await admin.get(`${MGMT}/${collection}/${id}`)).status).toBe(200);
      expect((await admin.get(`${MGMT}/service-policies/${policyId}`)).body.data[field]).toContain(`@${id}`);

      expect((await admin.delete(`${MGMT}/${collection}/${id}?cascade=true`)).status).toBe(200);
      expect((await admin.get(`${MGMT}/${collection}/${id}`)).status).toBe(404);
      expect((await admin.get(`${MGMT}/service-policies/${policyId}`)).body.data[field]).toEqual(['#kept']);
    },
  );

  it('an entity selected only by attribute is deleted without ceremony', async () => {
    const id = await create('services', { name: 'attr-only', roleAttributes: ['apps'] });
    expect((await admin.delete(`${MGMT}/services/${id}`)).status).toBe(200);
  });

  it('a bad cascade value is a 400 naming it', async () => {
    const id = await create('services', { name: 'bad-cascade' });
    const res = await admin.delete(`${MGMT}/services/${id}?cascade=perhaps`);
    expect(res.status).toBe(400);
    expect(res.body.error.cause.field).toBe('cascade');
    expect((await admin.get(`${MGMT}/services/${id}`)).status).toBe(200);
  });
});
