/**
 * Limits on what a client can make the controller keep: free-form maps (tags, client info) bounded in keys
 * and bytes, names and role attributes free of control and formatting characters, API sessions per identity
 * capped. Each refusal is a 400 naming the field, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;

beforeAll(async () => {
  tc = await startTestController({ maxApiSessionsPerIdentity: 3 });
  admin = new Api(tc.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
});
afterAll(() => tc?.dispose());

const serviceCount = async () =>
  (await admin.get(`${MGMT}/services`)).body.meta.pagination.totalCount as number;
const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));

describe('free-form fields and names', () => {
  it.each([
    [
      'a name with a control character',
      { name: 'bad\u0000name' },
      'name',
      'must not contain control or formatting characters',
    ],
    [
      'a name with a right-to-left override',
      { name: 'invoice\u202efdp.exe' },
      'name',
      'must not contain control or formatting characters',
    ],
    [
      'a role attribute with a line break',
      { name: 'ok', roleAttributes: ['a\nb'] },
      'roleAttributes[0]',
      'must not contain control or formatting characters',
    ],
    ['tags with 101 keys', { name: 'ok', tags: manyKeys(101) }, 'tags', 'must have at most 100 keys'],
    [
      'tags over 16 KiB',
      { name: 'ok', tags: { note: 'x'.repeat(16_384) } },
      'tags',
      'must be at most 16384 bytes as JSON',
    ],
  ])('refuses %s with a 400 naming the field, and stores nothing', async (_what, body, field, reason) => {
    const before = await serviceCount();
    const res = await admin.post(`${MGMT}/services`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.cause).toMatchObject({ field, reason });
    expect(await serviceCount()).toBe(before);
  });

  it('accepts ordinary names, any language, and tags within the limits', async () => {
    const res = await admin.post(`${MGMT}/services`, {
      name: 'Zürich – 東京 payroll',
      tags: { ...manyKeys(99), owner: 'it' },
    });
    expect(res.status).toBe(201);
  });

  it.each([
    ['envInfo with 33 keys', { envInfo: manyKeys(33) }, 'envInfo', 'must have at most 32 keys'],
    [
      'sdkInfo over 4 KiB',
      { sdkInfo: { note: 'x'.repeat(4096) } },
      'sdkInfo',
      'must be at most 4096 bytes as JSON',
    ],
  ])('refuses a sign-in with %s, and opens no session', async (_what, extra, field, reason) => {
    const sessions = (await admin.get(`${MGMT}/api-sessions`)).body.meta.pagination.totalCount;
    const res = await new Api(tc.url).request('POST', `${CLIENT}/authenticate?method=password`, {
      username: 'admin',
      password: ADMIN_PASSWORD,
      ...extra,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.cause).toMatchObject({ field, reason });
    expect((await admin.get(`${MGMT}/api-sessions`)).body.meta.pagination.totalCount).toBe(sessions);
  });
});

describe('API sessions per identity', () => {
  it('past the cap, a new sign-in ends the least recently used session, never the newest', async () => {
    await createUser(admin, 'many-logins', 'many-password');
    let offsetMs = 0;
    tc.ctx.clock = { now: () => new Date(Date.now() + offsetMs) };
    const signIn = async () => {
      offsetMs += 20_000;
      const api = new Api(tc.url);
      expect((await api.login('many-logins', 'many-password', CLIENT)).status).toBe(200);
      return api;
    };
    const first = await signIn();
    const second = await signIn();
    offsetMs += 20_000;
    // the first is used again: the second is now the least recently used
    expect((await first.get(`${CLIENT}/current-api-session`)).status).toBe(200);
    const third = await signIn();
    const fourth = await signIn();
    const alive = async (api: Api) => (await api.get(`${CLIENT}/current-api-session`)).status;
    expect([await alive(first), await alive(second), await alive(third), await alive(fourth)]).toEqual([
      200, 401, 200, 200,
    ]);
  });
});
