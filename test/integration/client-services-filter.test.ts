/**
 * The client API's `GET /services` takes OpenZiti's whole filter grammar, as the management lists do (issue 30
 * item 7): `in [...]`, `sort by`, role attributes, `skip`/`limit`; only over the caller's own services, and a
 * filter the management lists refuse is refused here the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
let client: Api;

const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((s) => s.name);
const q = (filter: string) => `${CLIENT}/services?filter=${encodeURIComponent(filter)}`;

beforeAll(async () => {
  tc = await startTestController();
  const admin = new Api(tc.url);
  await admin.login('admin', ADMIN_PASSWORD);
  await createUser(admin, 'filter-user', 'filter-password', { roleAttributes: ['filterers'] });
  for (const [name, attrs] of [
    ['svc-alpha', ['web']],
    ['svc-bravo', ['web', 'db']],
    ['svc-charlie', ['db']],
    ['svc-delta', ['ssh']],
  ] as const)
    await admin.post(`${MGMT}/services`, { name, roleAttributes: attrs });
  // Granted: alpha, bravo, charlie (web or db). Not granted: delta.
  await admin.post(`${MGMT}/service-policies`, {
    name: 'filter-dial',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#filterers'],
    serviceRoles: ['#web', '#db'],
  });
  client = new Api(tc.url);
  expect((await client.login('filter-user', 'filter-password', CLIENT)).status).toBe(200);
});
afterAll(() => tc?.dispose());

describe('client GET /services with the whole filter grammar', () => {
  it('takes in [...] and sort by', async () => {
    const res = await client.get(q('name in ["svc-alpha", "svc-charlie"] sort by name desc'));
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['svc-charlie', 'svc-alpha']);
    expect(res.body.meta.pagination.totalCount).toBe(2);
  });

  it('takes role attributes, not, skip and limit, and the sort parameter', async () => {
    expect(names(await client.get(q('anyOf(roleAttributes) = "db" sort by name')))).toEqual([
      'svc-bravo',
      'svc-charlie',
    ]);
    expect(names(await client.get(q('not (name = "svc-bravo") sort by name')))).toEqual([
      'svc-alpha',
      'svc-charlie',
    ]);
    const paged = await client.get(q('true sort by name skip 1 limit 1'));
    expect(names(paged)).toEqual(['svc-bravo']);
    expect(paged.body.meta.pagination).toEqual({ limit: 1, offset: 1, totalCount: 3 });
    const sorted = await client.get(`${CLIENT}/services?sort=${encodeURIComponent('name desc')}`);
    expect(names(sorted)).toEqual(['svc-charlie', 'svc-bravo', 'svc-alpha']);
  });

  it('never shows a service the caller may not use, whatever the filter', async () => {
    for (const filter of [
      'name = "svc-delta"',
      'true or name = "svc-delta"',
      'anyOf(roleAttributes) = "ssh"',
    ])
      expect(names(await client.get(q(filter)))).not.toContain('svc-delta');
  });

  it('keeps the lookups clients already send', async () => {
    expect(names(await client.get(q('name = "svc-bravo"')))).toEqual(['svc-bravo']);
    expect(names(await client.get(q('name contains "alp"')))).toEqual(['svc-alpha']);
  });

  it('refuses what the management lists refuse, with the same envelope', async () => {
    for (const filter of ['nosuchfield = "x"', 'name in [', 'name = 3']) {
      const res = await client.get(q(filter));
      expect(res.status, filter).toBe(400);
      expect(res.body.error.code, filter).toBe('INVALID_FILTER');
    }
  });
});
