/**
 * How policies combine into access, and how access that stops holding takes sessions with it: a policy
 * without checks grants on its own, a posture change, an identity change and a policy change each revoke,
 * and lastChangeAt moves whenever that happens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT } from '../helpers/api.js';
import { PostureWorld, unique } from '../helpers/posture-world.js';

describe('service access through policies', () => {
  let world: PostureWorld;
  beforeAll(async () => {
    world = await PostureWorld.start();
  });
  afterAll(() => world?.dispose());

  /** A service behind a DOMAIN check for identities with a fresh attribute. */
  async function guarded() {
    const attr = unique('team');
    const checkId = await world.check({
      typeId: 'DOMAIN',
      domains: ['corp.example'],
      roleAttributes: [`${attr}-c`],
    });
    const serviceId = await world.service([`${attr}-s`]);
    const policyId = await world.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`#${attr}-s`],
      postureCheckRoles: [`#${attr}-c`],
    });
    const user = await world.user([attr]);
    return { attr, checkId, serviceId, policyId, user };
  }

  it('answers an existing session again with what changed since: the service renamed', async () => {
    const attr = unique('again');
    const serviceId = await world.service([attr]);
    await world.policy({ identityRoles: [`#${attr}`], serviceRoles: [`#${attr}`] });
    const user = await world.user([attr]);
    const first = await world.session(user, serviceId);
    expect(first.status).toBe(201);
    const second = await world.session(user, serviceId);
    expect(second.body).toEqual(first.body);
    const renamed = unique('renamed');
    expect((await world.admin.patch(`${MGMT}/services/${serviceId}`, { name: renamed })).status).toBe(200);
    const third = await world.session(user, serviceId);
    expect(third.body.data).toMatchObject({ id: first.body.data.id, service: { name: renamed } });
  });

  it('grants through a second policy without posture checks while the first one fails', async () => {
    const { attr, serviceId, policyId, user } = await guarded();
    expect((await world.session(user, serviceId)).status).toBe(409);
    const open = await world.policy({ identityRoles: [`@${user.id}`], serviceRoles: [`#${attr}-s`] });

    const listed = await world.serviceOf(user, serviceId);
    const byPolicy = Object.fromEntries(
      listed.postureQueries.map((q: { policyId: string }) => [q.policyId, q]),
    );
    expect(byPolicy[policyId]).toMatchObject({ isPassing: false });
    expect(byPolicy[open]).toMatchObject({ isPassing: true, postureQueries: [] });
    expect((await world.session(user, serviceId)).status).toBe(201);
  });

  it('revokes an existing session when the posture changes, and moves lastChangeAt', async () => {
    const { checkId, serviceId, user } = await guarded();
    await world.respond(user, { id: checkId, typeId: 'DOMAIN', domain: 'corp.example' });
    const granted = await world.session(user, serviceId);
    expect(granted.status).toBe(201);
    const before = await world.lastChangeAt(user);

    await world.respond(user, { id: checkId, typeId: 'DOMAIN', domain: 'elsewhere' });
    expect((await world.getSession(user, granted.body.data.id)).status).toBe(404);
    expect(Date.parse(await world.lastChangeAt(user))).toBeGreaterThan(Date.parse(before));
    expect((await world.session(user, serviceId)).status).toBe(409);
  });

  it('does not move lastChangeAt for a response that changes nothing', async () => {
    const { checkId, user } = await guarded();
    await world.respond(user, { id: checkId, typeId: 'DOMAIN', domain: 'corp.example' });
    const before = await world.lastChangeAt(user);
    await world.respond(user, { id: checkId, typeId: 'DOMAIN', domain: 'CORP.EXAMPLE' });
    expect(await world.lastChangeAt(user)).toBe(before);
  });

  it('revokes when the identity loses the attribute a policy selects it by', async () => {
    const { checkId, serviceId, user } = await guarded();
    await world.respond(user, { id: checkId, typeId: 'DOMAIN', domain: 'corp.example' });
    const granted = await world.session(user, serviceId);
    expect(granted.status).toBe(201);
    expect(
      (await world.admin.patch(`${MGMT}/identities/${user.id}`, { roleAttributes: ['unrelated'] })).status,
    ).toBe(200);
    expect((await world.getSession(user, granted.body.data.id)).status).toBe(404);
    expect(await world.serviceOf(user, serviceId)).toBeUndefined();
    expect((await world.session(user, serviceId)).status).toBe(400);
  });

  it('revokes when a policy change adds a check the device fails', async () => {
    const { attr, checkId, serviceId, policyId, user } = await guarded();
    await world.respond(user, { id: checkId, typeId: 'DOMAIN', domain: 'corp.example' });
    const granted = await world.session(user, serviceId);
    const before = await world.lastChangeAt(user);
    const macCheck = await world.check({
      typeId: 'MAC',
      macAddresses: ['00-11-22-33-44-55'],
      roleAttributes: [`${attr}-c`],
    });
    expect((await world.getSession(user, granted.body.data.id)).status).toBe(404);
    expect(Date.parse(await world.lastChangeAt(user))).toBeGreaterThan(Date.parse(before));
    const refused = await world.session(user, serviceId);
    expect(refused.body.error.cause.data[policyId]).toEqual([
      { id: macCheck, typeId: 'MAC', isPassing: false },
    ]);
  });

  it('selects identities by all of the attributes under AllOf and any of them under AnyOf', async () => {
    const a = unique('a');
    const b = unique('b');
    const serviceId = await world.service();
    await world.policy({
      semantic: 'AllOf',
      identityRoles: [`#${a}`, `#${b}`],
      serviceRoles: [`@${serviceId}`],
    });
    const both = await world.user([a, b]);
    const one = await world.user([a]);
    expect(await world.serviceOf(both, serviceId)).toBeDefined();
    expect(await world.serviceOf(one, serviceId)).toBeUndefined();
    await world.policy({
      semantic: 'AnyOf',
      type: 'Bind',
      identityRoles: [`#${b}`, `#${unique('x')}`],
      serviceRoles: [`@${serviceId}`],
    });
    const bindOnly = await world.user([b]);
    expect((await world.serviceOf(bindOnly, serviceId)).permissions).toEqual(['Bind']);
    expect((await world.serviceOf(both, serviceId)).permissions).toEqual(['Dial', 'Bind']);
    expect((await world.session(bindOnly, serviceId)).status).toBe(400);
    expect((await world.session(bindOnly, serviceId, 'Bind')).status).toBe(201);
  });

  it('refuses an unknown service or a missing permission as a field error on serviceId', async () => {
    const user = await world.user();
    const serviceId = await world.service();
    for (const id of [serviceId, 'no-such-service']) {
      const res = await world.session(user, id);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'COULD_NOT_VALIDATE', cause: { field: 'serviceId' } });
    }
    expect((await user.api.get(`${CLIENT}/services/${serviceId}`)).status).toBe(404);
  });

  it('shows, reads and deletes only the caller’s own sessions', async () => {
    const attr = unique('own');
    const serviceId = await world.service();
    await world.policy({ identityRoles: [`#${attr}`], serviceRoles: [`@${serviceId}`] });
    const alice = await world.user([attr]);
    const bob = await world.user([attr]);
    const mine = (await world.session(alice, serviceId)).body.data.id as string;
    expect((await world.session(alice, serviceId)).body.data.id).toBe(mine);
    const listed = world.checked('GET', `${CLIENT}/sessions`, await alice.api.get(`${CLIENT}/sessions`));
    expect((listed.body.data as { id: string }[]).map((s) => s.id)).toEqual([mine]);
    expect((await world.getSession(bob, mine)).status).toBe(404);
    expect((await bob.api.delete(`${CLIENT}/sessions/${mine}`)).status).toBe(404);
    const deleted = world.checked(
      'DELETE',
      `${CLIENT}/sessions/{id}`,
      await alice.api.delete(`${CLIENT}/sessions/${mine}`),
    );
    expect(deleted.status).toBe(200);
    expect((await world.getSession(alice, mine)).status).toBe(404);
  });

  it('serves one service with its queries at /services/<id>', async () => {
    const { serviceId, policyId, user } = await guarded();
    const res = world.checked(
      'GET',
      `${CLIENT}/services/{id}`,
      await user.api.get(`${CLIENT}/services/${serviceId}`),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: serviceId,
      permissions: ['Dial'],
      postureQueries: [{ policyId, isPassing: false }],
    });
  });
});

describe('service listing while no posture check exists', () => {
  let world: PostureWorld;
  beforeAll(async () => {
    world = await PostureWorld.start();
  });
  afterAll(() => world?.dispose());

  it('shows OpenZiti’s placeholder query set per permission', async () => {
    const serviceId = await world.service();
    const user = await world.user();
    await world.policy({ identityRoles: [`@${user.id}`], serviceRoles: [`@${serviceId}`] });
    await world.policy({ type: 'Bind', identityRoles: ['#all'], serviceRoles: [`@${serviceId}`] });
    expect((await world.serviceOf(user, serviceId)).postureQueries).toEqual([
      {
        policyId: 'dummy dial policy: no posture checks defined',
        policyType: 'Dial',
        isPassing: true,
        postureQueries: [],
      },
      {
        policyId: 'dummy bind policy: no posture checks defined',
        policyType: 'Bind',
        isPassing: true,
        postureQueries: [],
      },
    ]);
    expect((await world.session(user, serviceId)).status).toBe(201);
  });
});
