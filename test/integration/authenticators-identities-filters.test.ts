/**
 * OpenZiti's filter grammar where ZAC and the `ziti` CLI use it beyond the entity lists: `GET /authenticators`
 * by OpenZiti's field names (`identity = "…"`, `method = "updb"`, `updbUsername`, `in [...]`, `sort by`, paging),
 * and the identity list's `disabled`, which counts a timed disable until it ends and not after (as the detail
 * answers it). A real controller on its store (SQLite or PostgreSQL, by project).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT, createUser } from '../helpers/api.js';
import { ADMIN_PASSWORD, startTestController, type TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;
const ids: Record<string, string> = {};
const q = (filter: string) => `filter=${encodeURIComponent(filter)}`;

beforeAll(async () => {
  tc = await startTestController();
  admin = new Api(tc.url);
  expect((await admin.login('admin', ADMIN_PASSWORD)).status).toBe(200);
  for (const name of ['flt-ann', 'flt-bob', 'flt-cat', 'flt-dan'])
    ids[name] = await createUser(admin, name, 'a-password-long-enough-1');
});
afterAll(async () => {
  await tc?.dispose();
});

describe('GET /authenticators with the filter grammar', () => {
  it('filters by identity, method and username under OpenZiti’s names, sorted and paged', async () => {
    const mine = await admin.get(`${MGMT}/authenticators?${q(`identity = "${ids['flt-bob']}"`)}`);
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.data.map((a: { identityId: string }) => a.identityId)).toEqual([ids['flt-bob']]);
    expect(mine.body.meta.pagination.totalCount).toBe(1);

    const updb = await admin.get(
      `${MGMT}/authenticators?${q('method = "updb" and updbUsername contains "flt-"')}`,
    );
    expect(updb.body.data.map((a: { username: string }) => a.username)).toEqual([
      'flt-ann',
      'flt-bob',
      'flt-cat',
      'flt-dan',
    ]);
    expect((await admin.get(`${MGMT}/authenticators?${q('method = "cert"')}`)).body.data).toEqual([]);

    const two = [ids['flt-ann'], ids['flt-cat'], ids['flt-dan']].map((id) => `"${id}"`).join(', ');
    const page = await admin.get(
      `${MGMT}/authenticators?${q(`identity in [${two}] sort by updbUsername desc skip 1 limit 1`)}`,
    );
    expect(page.body.data.map((a: { username: string }) => a.username)).toEqual(['flt-cat']);
    expect(page.body.meta.pagination).toMatchObject({ totalCount: 3, limit: 1, offset: 1 });
  });

  it('refuses a filter it cannot answer with the error envelope naming filter', async () => {
    for (const bad of ['passwordHash = "x"', 'method = ', 'identity = 3']) {
      const res = await admin.get(`${MGMT}/authenticators?${q(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('INVALID_FILTER');
      expect(res.body.error.cause.field).toBe('filter');
    }
  });
});

describe("the identity list's disabled filter", () => {
  it('counts a timed disable until it ends, and not one that has ended', async () => {
    const forAnHour = await admin.post(`${MGMT}/identities/${ids['flt-ann']}/disable`, {
      durationMinutes: 60,
    });
    expect(forAnHour.status).toBe(200);
    expect(
      (await admin.post(`${MGMT}/identities/${ids['flt-bob']}/disable`, { durationMinutes: 0 })).status,
    ).toBe(200);
    expect(
      (await admin.post(`${MGMT}/identities/${ids['flt-cat']}/disable`, { durationMinutes: 5 })).status,
    ).toBe(200);
    // cat's five minutes are over: its stored flag stays true, its disabledUntil is now in the past.
    const cat = (await tc.ctx.store.identities.get(ids['flt-cat']!))!;
    expect(cat.disabled).toBe(true);
    await tc.ctx.store.identities.update({
      ...cat,
      disabledUntil: new Date(Date.now() - 60_000).toISOString(),
    });
    expect((await admin.get(`${MGMT}/identities/${ids['flt-cat']}`)).body.data.disabled).toBe(false);

    const names = async (filter: string) => {
      const res = await admin.get(
        `${MGMT}/identities?${q(`${filter} and name contains "flt-" sort by name`)}`,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.map((i: { name: string }) => i.name);
    };
    expect(await names('disabled = true')).toEqual(['flt-ann', 'flt-bob']);
    expect(await names('disabled = false')).toEqual(['flt-cat', 'flt-dan']);
    expect(await names('not disabled')).toEqual(['flt-cat', 'flt-dan']);
  });
});
