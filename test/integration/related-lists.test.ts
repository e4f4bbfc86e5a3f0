/**
 * The read routes OpenZiti clients and its console use to show relations: role attributes per kind, and
 * what a policy selects, what selects an identity or a service, each a paged list envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, MGMT } from '../helpers/api.js';
import { PostureWorld, unique } from '../helpers/posture-world.js';

let world: PostureWorld;
let admin: Api;
const ids: Record<string, string> = {};

beforeAll(async () => {
  world = await PostureWorld.start();
  admin = world.admin;
  ids.check = await world.check({
    typeId: 'MAC',
    macAddresses: ['aa:bb:cc:dd:ee:ff'],
    roleAttributes: ['rel-healthy'],
  });
  ids.service = await world.service(['rel-crm'], unique('rel-service'));
  ids.otherService = await world.service(['rel-other']);
  ids.policy = await world.policy({
    identityRoles: ['#rel-sales'],
    serviceRoles: ['#rel-crm'],
    postureCheckRoles: ['#rel-healthy'],
  });
  ids.identity = (await world.user(['rel-sales'])).id;
  ids.outsider = (await world.user(['rel-nobody'])).id;
});
afterAll(() => world?.dispose());

const idsOf = async (path: string) => {
  const res = await admin.get(`${MGMT}${path}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.data as { id: string }[]).map((e) => e.id);
};

describe('role attribute lists', () => {
  it.each([
    ['identity', 'rel-sales'],
    ['service', 'rel-crm'],
    ['posture-check', 'rel-healthy'],
  ])('GET /%s-role-attributes lists the attributes in use', async (kind, attribute) => {
    const res = await admin.get(`${MGMT}/${kind}-role-attributes?limit=500`);
    expect(res.status).toBe(200);
    expect(res.body.data).toContain(attribute);
    expect(res.body.meta.pagination.totalCount).toBe(res.body.data.length);
  });

  it('pages and filters', async () => {
    const res = await admin.get(
      `${MGMT}/identity-role-attributes?filter=${encodeURIComponent('name contains "rel-sa"')}`,
    );
    expect(res.body.data).toEqual(['rel-sales']);
  });
});

describe('who selects what', () => {
  it('a policy: its identities, services and posture checks', async () => {
    expect(await idsOf(`/service-policies/${ids.policy}/identities`)).toEqual([ids.identity]);
    expect(await idsOf(`/service-policies/${ids.policy}/services`)).toEqual([ids.service]);
    expect(await idsOf(`/service-policies/${ids.policy}/posture-checks`)).toEqual([ids.check]);
  });

  it('an identity: the policies that select it and the services they reach', async () => {
    expect(await idsOf(`/identities/${ids.identity}/service-policies`)).toEqual([ids.policy]);
    expect(await idsOf(`/identities/${ids.identity}/services`)).toEqual([ids.service]);
    expect(await idsOf(`/identities/${ids.outsider}/services`)).toEqual([]);
  });

  it('a service: the policies that select it and their identities', async () => {
    expect(await idsOf(`/services/${ids.service}/service-policies`)).toEqual([ids.policy]);
    expect(await idsOf(`/services/${ids.service}/identities`)).toEqual([ids.identity]);
    expect(await idsOf(`/services/${ids.otherService}/identities`)).toEqual([]);
  });

  it('an unknown owner is a 404 in the OpenZiti envelope', async () => {
    const res = await admin.get(`${MGMT}/services/no-such-service/identities`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});
