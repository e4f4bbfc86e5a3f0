/**
 * The management routes the administrators' console reads, against a real controller, each answer checked
 * against its published schema: access explained per identity and service (each policy and check, actual
 * against expected, the reason code, the policies that do not select the identity), the same for every
 * service of an identity, the overview's counts across devices, every identity's refused requests newest
 * first, and one identity's API sessions through the `identity = "<id>"` filter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT } from '../helpers/api.js';
import { PostureWorld, type TestUser } from '../helpers/posture-world.js';

let w: PostureWorld;
let alice: TestUser;
let bob: TestUser;
const ids = { crm: '', wiki: '', hr: '', linux99: '', mfa: '' };

const linux = (version: string) => ({ typeId: 'OS', type: 'Linux', version, build: '' });

beforeAll(async () => {
  w = await PostureWorld.start();
  ids.linux99 = await w.check({
    typeId: 'OS',
    operatingSystems: [{ type: 'Linux', versions: ['>=99.0.0'] }],
    remediation: 'Use the 2031 image.',
  });
  ids.mfa = await w.check({ typeId: 'MFA', timeoutSeconds: -1 });
  ids.crm = await w.service([], 'crm');
  ids.wiki = await w.service([], 'wiki');
  ids.hr = await w.service([], 'hr');
  await w.create('service-policies', {
    name: 'sales-crm',
    type: 'Dial',
    semantic: 'AllOf',
    identityRoles: ['#sales'],
    serviceRoles: [`@${ids.crm}`],
    postureCheckRoles: [`@${ids.linux99}`, `@${ids.mfa}`],
  });
  await w.policy({ name: 'sales-wiki', identityRoles: ['#sales'], serviceRoles: [`@${ids.wiki}`] });
  await w.policy({ name: 'hr-only', identityRoles: ['#hr'], serviceRoles: [`@${ids.hr}`] });
  alice = await w.user(['sales'], 'alice');
  bob = await w.user(['sales'], 'bobby');
  await w.respond(alice, { id: ids.linux99, ...linux('6.8.0') });
  await w.respond(bob, { id: ids.linux99, ...linux('6.8.0') });
  // Refused session requests, in this order: bob's, then alice's.
  expect((await w.session(bob, ids.crm)).status).toBe(409);
  expect((await w.session(alice, ids.crm)).status).toBe(409);
});

afterAll(() => w?.dispose());

const access = async (identityId: string, serviceId: string, query = '') =>
  w.checked(
    'GET',
    `${MGMT}/identities/{id}/services/{serviceId}/access`,
    await w.admin.get(`${MGMT}/identities/${identityId}/services/${serviceId}/access${query}`),
  );

describe('GET /identities/:id/services/:serviceId/access', () => {
  it('writes out each policy and check with its result, actual and expected values, reason and advice', async () => {
    const res = await access(alice.id, ids.crm);
    expect(res.status).toBe(200);
    const a = res.body.data;
    expect(a.service).toMatchObject({ id: ids.crm, name: 'crm' });
    expect(a.identity).toMatchObject({ id: alice.id, name: 'alice' });
    expect(a.apiSessionId).toBe(alice.apiSessionId);
    expect(a.granted).toEqual({ Dial: false, Bind: null });
    expect(a.policies).toHaveLength(1);
    const [policy] = a.policies;
    expect(policy).toMatchObject({ name: 'sales-crm', type: 'Dial', semantic: 'AllOf', isPassing: false });
    const os = policy.postureChecks.find((c: { typeId: string }) => c.typeId === 'OS');
    expect(os).toMatchObject({
      id: ids.linux99,
      isPassing: false,
      actualValue: { type: 'Linux', version: '6.8.0' },
      expectedValue: [{ type: 'Linux', versions: ['>=99.0.0'] }],
      failure: { code: 'OS_VERSION_OUT_OF_RANGE', osVersion: '6.8.0' },
      remediation: 'Use the 2031 image.',
    });
    expect(os.reason).toEqual(expect.any(String));
    const mfa = policy.postureChecks.find((c: { typeId: string }) => c.typeId === 'MFA');
    expect(mfa).toMatchObject({ isPassing: false, failure: { code: 'MFA_REQUIRED' } });
    expect(a.otherPolicies).toEqual([]);
  });

  it('a passing policy grants, and its checks read as passing with no reason', async () => {
    const a = (await access(alice.id, ids.wiki)).body.data;
    expect(a.granted).toEqual({ Dial: true, Bind: null });
    expect(a.policies).toEqual([
      expect.objectContaining({ name: 'sales-wiki', isPassing: true, postureChecks: [] }),
    ]);
  });

  it("names the service's policies that do not select the identity", async () => {
    const a = (await access(alice.id, ids.hr)).body.data;
    expect(a.granted).toEqual({ Dial: null, Bind: null });
    expect(a.policies).toEqual([]);
    expect(a.otherPolicies).toEqual([
      expect.objectContaining({ name: 'hr-only', type: 'Dial', identityRoles: ['#hr'] }),
    ]);
  });

  it('evaluates a chosen API session, and an identity without one as a new sign-in', async () => {
    await w.passMfa(alice);
    const passed = (await access(alice.id, ids.crm, `?apiSessionId=${alice.apiSessionId}`)).body.data;
    const mfa = passed.policies[0].postureChecks.find((c: { typeId: string }) => c.typeId === 'MFA');
    expect(mfa.isPassing).toBe(true);
    expect(mfa.failure).toBeUndefined();
    expect(
      (await w.admin.get(`${MGMT}/identities/${alice.id}/services/${ids.crm}/access?apiSessionId=nope`))
        .status,
    ).toBe(404);
    const carol = await w.create('identities', {
      name: 'carol',
      type: 'User',
      isAdmin: false,
      roleAttributes: ['sales'],
    });
    const fresh = (await access(carol, ids.crm)).body.data;
    expect(fresh.apiSessionId).toBeNull();
    const os = fresh.policies[0].postureChecks.find((c: { typeId: string }) => c.typeId === 'OS');
    expect(os.failure).toEqual({ code: 'NO_DATA_YET', missing: 'OS' });
  });

  it('answers 404 for an unknown identity or service', async () => {
    expect((await w.admin.get(`${MGMT}/identities/nope/services/${ids.crm}/access`)).status).toBe(404);
    expect((await w.admin.get(`${MGMT}/identities/${alice.id}/services/nope/access`)).status).toBe(404);
  });
});

describe('GET /identities/:id/service-access', () => {
  it("explains every service the identity's policies reach, paged and filtered by name", async () => {
    const res = w.checked(
      'GET',
      `${MGMT}/identities/{id}/service-access`,
      await w.admin.get(`${MGMT}/identities/${bob.id}/service-access`),
    );
    expect(res.body.data.map((a: { service: { name: string } }) => a.service.name)).toEqual(['crm', 'wiki']);
    expect(res.body.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 2 });
    expect(res.body.data[0].otherPolicies).toBeUndefined();
    const page = await w.admin.get(
      `${MGMT}/identities/${bob.id}/service-access?limit=1&offset=1&filter=${encodeURIComponent('name contains "ik"')}`,
    );
    expect(page.body.data).toEqual([]);
    expect(page.body.meta.pagination.totalCount).toBe(1);
  });
});

describe('the overview', () => {
  it('counts signed-in devices granted and refused per service, and the MFA share', async () => {
    const res = w.checked('GET', `${MGMT}/access-summary`, await w.admin.get(`${MGMT}/access-summary`));
    const summary = res.body.data;
    // alice passed MFA but runs too old an OS; bob has neither: both refused crm, both granted wiki.
    expect(summary.services).toEqual([
      { id: ids.crm, name: 'crm', passing: 0, failing: 2 },
      { id: ids.wiki, name: 'wiki', passing: 2, failing: 0 },
    ]);
    expect(summary.devices).toBe(2);
    expect(summary.identities).toBe(4);
    expect(summary.mfaEnrolled).toBe(0);
  });

  it("lists every identity's refused requests, newest first", async () => {
    const res = w.checked(
      'GET',
      `${MGMT}/failed-service-requests`,
      await w.admin.get(`${MGMT}/failed-service-requests?limit=1`),
    );
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      identityId: alice.id,
      identity: { name: 'alice' },
      serviceName: 'crm',
    });
    expect(res.body.meta.pagination).toEqual({ limit: 1, offset: 0, totalCount: 2 });
    const next = await w.admin.get(`${MGMT}/failed-service-requests?limit=1&offset=1`);
    expect(next.body.data[0].identityId).toBe(bob.id);
    // No filter here (one identity's list has its own route): one given is refused by name, repeated or not.
    for (const query of ['filter=x', 'filter=a&filter='])
      expect((await w.admin.get(`${MGMT}/failed-service-requests?${query}`)).body.error?.cause?.field).toBe(
        'filter',
      );
  });
});

describe('GET /api-sessions?filter=identity="<id>"', () => {
  it("lists one identity's API sessions", async () => {
    const filter = encodeURIComponent(`identity = "${bob.id}"`);
    const res = w.checked(
      'GET',
      `${MGMT}/api-sessions`,
      await w.admin.get(`${MGMT}/api-sessions?filter=${filter}`),
    );
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([bob.apiSessionId]);
    expect(res.body.meta.pagination.totalCount).toBe(1);
    const byIdentityId = await w.admin.get(
      `${MGMT}/api-sessions?filter=${encodeURIComponent(`identityId = "${alice.id}"`)}`,
    );
    expect(byIdentityId.body.data.map((s: { identityId: string }) => s.identityId)).toEqual([alice.id]);
  });
});
