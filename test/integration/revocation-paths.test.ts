/**
 * Two paths only an administrator's change or the passing of time takes, with no request from the client:
 * - a service change (PATCH or PUT) that takes a service out of an identity's reach, or moves it behind a
 *   posture check the device fails, revokes the identity's live edge session before the admin is answered;
 * - the refresh that follows any catalogue change (service, policy, check) moves lastChangeAt for every
 *   identity signed in without edge sessions, in chunks in the background, so agents re-list their services;
 *   and an MFA timeout reached on its timer moves lastChangeAt by itself too, with no edge session revoked.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { FakeClock } from '../helpers/mfa.js';
import { PostureWorld, unique, type TestUser } from '../helpers/posture-world.js';
import { createApiSession } from '../../controller/auth/api-sessions.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a service change revokes a live session', () => {
  let world: PostureWorld;
  beforeAll(async () => {
    world = await PostureWorld.start();
  });
  afterAll(() => world?.dispose());

  /** A user holding a Dial session on a service an open policy selects by `#<attr>-open`. */
  async function holding() {
    const attr = unique('svc-change');
    const name = unique('svc');
    const serviceId = await world.service([`${attr}-open`], name);
    await world.policy({ identityRoles: [`#${attr}`], serviceRoles: [`#${attr}-open`] });
    const user = await world.user([attr]);
    const granted = await world.session(user, serviceId, 'Dial');
    expect(granted.status).toBe(201);
    const sessionId = granted.body.data.id as string;
    // The positive control: the session stands and the service is listed while access holds.
    expect((await world.getSession(user, sessionId)).status).toBe(200);
    expect(await world.serviceOf(user, serviceId)).toMatchObject({ id: serviceId, permissions: ['Dial'] });
    return { attr, name, serviceId, user, sessionId };
  }

  it('removes the session when a PATCH drops the attribute the policy selects the service by', async () => {
    const { serviceId, user, sessionId } = await holding();
    const before = await world.lastChangeAt(user);

    const patched = await world.admin.patch(`${MGMT}/services/${serviceId}`, {
      roleAttributes: ['elsewhere'],
    });
    expect(patched.status).toBe(200);

    // Revoked by the time the admin is answered: the client made no request in between.
    const gone = await world.getSession(user, sessionId);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('NOT_FOUND');
    const listed = world.checked('GET', `${CLIENT}/sessions`, await user.api.get(`${CLIENT}/sessions`));
    expect((listed.body.data as { id: string }[]).map((s) => s.id)).not.toContain(sessionId);
    expect(await world.serviceOf(user, serviceId)).toBeUndefined();
    expect(Date.parse(await world.lastChangeAt(user))).toBeGreaterThan(Date.parse(before));
    expect((await world.session(user, serviceId)).status).toBe(400);
  });

  it('removes the session when a PUT moves the service behind a posture check the device fails', async () => {
    const { attr, name, serviceId, user, sessionId } = await holding();
    const checkId = await world.check({
      typeId: 'DOMAIN',
      domains: ['corp.example'],
      roleAttributes: [`${attr}-c`],
    });
    const guardedPolicy = await world.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`#${attr}-guarded`],
      postureCheckRoles: [`#${attr}-c`],
    });
    // Still reachable through the open policy (the guarded one does not select the service yet).
    expect((await world.getSession(user, sessionId)).status).toBe(200);

    const put = await world.admin.put(`${MGMT}/services/${serviceId}`, {
      name,
      roleAttributes: [`${attr}-guarded`],
    });
    expect(put.status).toBe(200);

    expect((await world.getSession(user, sessionId)).status).toBe(404);
    // Still listed (a policy selects it), but only through the failing check.
    const listed = await world.serviceOf(user, serviceId);
    expect(listed.postureQueries).toEqual([
      expect.objectContaining({
        policyId: guardedPolicy,
        isPassing: false,
        postureQueries: [expect.objectContaining({ id: checkId, isPassing: false })],
      }),
    ]);
    expect((await world.session(user, serviceId)).status).toBe(409);
  });
});

describe('the background refresh after a catalogue change', () => {
  let world: PostureWorld;
  let clock: FakeClock;
  beforeAll(async () => {
    world = await PostureWorld.start();
    clock = new FakeClock(world.ctx);
  });
  afterAll(() => world?.dispose());

  const iso = (ms: number) => new Date(ms).toISOString();

  it('moves lastChangeAt of a signed-in identity without edge sessions when a service it reaches is renamed', async () => {
    const attr = unique('rename');
    const serviceId = await world.service([], unique('svc'));
    await world.policy({ identityRoles: [`#${attr}`], serviceRoles: [`@${serviceId}`] });
    const user = await world.user([attr]);
    const signedInAt = clock.now();
    expect(await world.lastChangeAt(user)).toBe(iso(signedInAt));
    expect((await user.api.get(`${CLIENT}/sessions`)).body.data).toEqual([]);

    // The rename changes no policy or check result (the access digest stays put): only the refresh's
    // forced change can tell this client to list its services again.
    clock.advance(60_000);
    const renamed = unique('renamed');
    expect((await world.admin.patch(`${MGMT}/services/${serviceId}`, { name: renamed })).status).toBe(200);

    expect(await world.lastChangeAt(user)).toBe(iso(signedInAt + 60_000));
    expect((await world.serviceOf(user, serviceId)).name).toBe(renamed);
  });

  it('reaches every signed-in identity, past the first chunk of 200, without a request from any of them', async () => {
    const serviceId = await world.service([], unique('svc'));
    const users: { id: string; api: Api }[] = [];
    for (let i = 0; i < 250; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: 25 }, async () => {
          const created = await world.admin.post(`${MGMT}/identities`, {
            name: unique('many'),
            type: 'User',
            isAdmin: false,
          });
          expect(created.status).toBe(201);
          return created.body.data.id as string;
        }),
      );
      for (const id of batch) {
        // An API session as a password login creates it (250 scrypt logins would take half a minute).
        const { token } = await createApiSession(world.ctx, {
          identity: (await world.ctx.store.identities.get(id))!,
          authenticatorId: `test-${id}`,
          ipAddress: '127.0.0.1',
          envInfo: {},
          sdkInfo: {},
          configTypes: [],
        });
        users.push({ id, api: new Api(world.controller.url, token) });
      }
    }
    expect(await world.ctx.store.posture.sessions.identitiesWithSessions()).toEqual([]);
    expect((await world.ctx.store.posture.data.identitiesWithApiSessions()).length).toBeGreaterThan(250);

    clock.advance(60_000);
    const changeAt = iso(clock.now());
    expect((await world.admin.patch(`${MGMT}/services/${serviceId}`, { tags: { rev: '2' } })).status).toBe(
      200,
    );

    const lastChangeOf = async (id: string) =>
      (await world.ctx.store.posture.changes.lastChangeAt(id))?.toISOString();
    const behind = async () => {
      const seen = await Promise.all(users.map(async (u) => ({ id: u.id, at: await lastChangeOf(u.id) })));
      return seen.filter((u) => u.at !== changeAt).map((u) => u.id);
    };
    // A generous bound: on a loaded machine (CI with other suites) the refresh of 250 identities took 14 s.
    await vi.waitFor(async () => expect(await behind()).toEqual([]), {
      timeout: 90_000,
      interval: 20,
    });
    // And as the clients see it, 25 at a time.
    for (let i = 0; i < users.length; i += 25) {
      await Promise.all(
        users.slice(i, i + 25).map(async (user) => {
          const res = world.checked(
            'GET',
            `${CLIENT}/current-api-session/service-updates`,
            await user.api.get(`${CLIENT}/current-api-session/service-updates`),
          );
          expect(res.body.data.lastChangeAt).toBe(changeAt);
        }),
      );
    }
  }, 300_000);
});

describe('an MFA timeout reached on its timer', () => {
  let world: PostureWorld;
  beforeAll(async () => {
    world = await PostureWorld.start();
  });
  afterAll(() => world?.dispose());

  it('moves lastChangeAt by itself for an identity holding no edge session', async () => {
    const attr = unique('mfa-idle');
    await world.check({ typeId: 'MFA', timeoutSeconds: 1, roleAttributes: [`${attr}-c`] });
    const serviceId = await world.service();
    await world.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`#${attr}-c`],
    });
    const user: TestUser = await world.user([attr]);
    const passedAt = Date.now();
    await world.passMfa(user);
    const afterPass = await world.lastChangeAt(user);
    expect((await world.serviceOf(user, serviceId)).postureQueries[0].isPassing).toBe(true);
    expect((await user.api.get(`${CLIENT}/sessions`)).body.data).toEqual([]);

    // Only reads from here on: the timer alone re-evaluates, and nothing is revoked to force the change.
    let movedAt = 0;
    while (Date.now() - passedAt < 5_000) {
      if ((await world.lastChangeAt(user)) !== afterPass) {
        movedAt = Date.now();
        break;
      }
      await sleep(50);
    }
    expect(movedAt, 'lastChangeAt still unmoved 5 s after the TOTP pass').toBeGreaterThan(0);
    expect(movedAt - passedAt).toBeGreaterThanOrEqual(900);
    expect(Date.parse(await world.lastChangeAt(user))).toBeGreaterThan(Date.parse(afterPass));
    expect((await world.serviceOf(user, serviceId)).postureQueries[0].isPassing).toBe(false);
  });
});
