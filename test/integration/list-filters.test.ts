/**
 * OpenZiti's filter grammar on the management lists, compiled to SQL: comparisons, contains, in, dates,
 * and/or/not, sort, skip and limit (inside the filter or as query parameters), role attributes as a set,
 * ZAC's own queries, and INVALID_FILTER naming the position.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT } from '../helpers/api.js';
import { PostureWorld } from '../helpers/posture-world.js';

let world: PostureWorld;

beforeAll(async () => {
  world = await PostureWorld.start();
  await world.service(['flt-red'], 'flt-alpha');
  await world.service(['flt-red', 'flt-blue'], 'flt-beta');
  await world.service(['flt-blue'], 'flt-gamma');
  await world.service([], 'flt-delta');
});
afterAll(() => world?.dispose());

const list = async (filter: string, extra = '') => {
  const res = await world.admin.get(`${MGMT}/services?filter=${encodeURIComponent(filter)}${extra}`);
  return res;
};
const namesOf = async (filter: string, extra = '') => {
  const res = await list(filter, extra);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as { name: string }[]).map((s) => s.name);
};

describe('filters on management lists', () => {
  it('answers ZAC’s own query: contains, sort, skip and limit, with the total', async () => {
    const res = await list('name contains "flt-" sort by name asc skip 1 limit 2');
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { name: string }) => s.name)).toEqual(['flt-beta', 'flt-delta']);
    expect(res.body.meta.pagination).toEqual({ limit: 2, offset: 1, totalCount: 4 });
  });

  it('combines and, or, not and parentheses, and sorts descending', async () => {
    expect(
      await namesOf(
        'name contains "flt-" and not (name = "flt-alpha" or name = "flt-beta") sort by name desc',
      ),
    ).toEqual(['flt-gamma', 'flt-delta']);
    expect(await namesOf('name in ["flt-alpha", "flt-gamma"] sort by name')).toEqual([
      'flt-alpha',
      'flt-gamma',
    ]);
    expect(await namesOf('name icontains "FLT-DEL"')).toEqual(['flt-delta']);
  });

  it('selects on role attributes as a set', async () => {
    expect(await namesOf('anyOf(roleAttributes) = "flt-red" sort by name')).toEqual([
      'flt-alpha',
      'flt-beta',
    ]);
    expect(
      await namesOf('anyOf(roleAttributes) in ["flt-blue"] and name contains "flt-" sort by name'),
    ).toEqual(['flt-beta', 'flt-gamma']);
    expect(await namesOf('isEmpty(roleAttributes) and name contains "flt-"')).toEqual(['flt-delta']);
  });

  it('compares dates', async () => {
    expect(
      await namesOf('createdAt > datetime(2000-01-01T00:00:00Z) and name contains "flt-" limit 10'),
    ).toHaveLength(4);
    expect(await namesOf('createdAt < datetime(2000-01-01T00:00:00Z)')).toEqual([]);
  });

  it('takes limit and offset as query parameters too', async () => {
    const res = await list('name contains "flt-" sort by name', '&limit=1&offset=3');
    expect(res.body.data.map((s: { name: string }) => s.name)).toEqual(['flt-gamma']);
    expect(res.body.meta.pagination.totalCount).toBe(4);
  });

  it('treats a value as a value, never as SQL', async () => {
    expect(await namesOf(`name = "x\\" or 1=1 --"`)).toEqual([]);
  });

  it.each([
    ['name contains', 'expected'],
    ['nmae = "x"', 'nmae'],
    ['name = "x" and', 'expected'],
    ['createdAt > "yesterday"', 'createdAt'],
  ])('refuses %s with INVALID_FILTER naming the position or the field', async (filter, words) => {
    const res = await list(filter);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_FILTER');
    expect(res.body.error.message).toContain(words);
  });

  it('works on every management list', async () => {
    for (const collection of [
      'identities',
      'posture-checks',
      'service-policies',
      'configs',
      'edge-routers',
      'auth-policies',
    ])
      expect(
        (
          await world.admin.get(
            `${MGMT}/${collection}?filter=${encodeURIComponent('name contains "" sort by name asc skip 0 limit 25')}`,
          )
        ).status,
        collection,
      ).toBe(200);
    expect(
      (await world.admin.get(`${MGMT}/posture-checks?filter=${encodeURIComponent('typeId = "MFA"')}`)).status,
    ).toBe(200);
  });
});
