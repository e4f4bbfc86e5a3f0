/**
 * Posture responses in and posture data out: validation that names `[index].field` and stores nothing on
 * any bad item, the management view's shape (OpenZiti's `postureData`), the wake/unlock grace reply, and clean-up when API
 * sessions and identities go away.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT } from '../helpers/api.js';
import { PostureWorld, unique } from '../helpers/posture-world.js';

const HASH = 'ef'.repeat(32);
const SIGNER = '12'.repeat(20);

describe('posture responses and posture data', () => {
  let world: PostureWorld;
  beforeAll(async () => {
    world = await PostureWorld.start();
  });
  afterAll(() => world?.dispose());

  it('refuses a bulk request with one bad item, naming [index].field, and stores nothing', async () => {
    const user = await world.user();
    const res = await world.respondBulk(user, [
      { id: 'os-check', typeId: 'OS', type: 'Windows', version: '10.0.19045', build: '3803' },
      { id: 'domain-check', typeId: 'DOMAIN', domain: 'corp' },
      { id: 'mac-check', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
      { id: 'mac-check', typeId: 'MAC', macAddresses: ['not-a-mac', 'aa:bb:cc:dd:ee:ff'] },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'COULD_NOT_VALIDATE',
      cause: { field: '[3].macAddresses[0]', value: 'not-a-mac' },
    });
    const data = (await world.postureData(user.id)).body.data;
    expect(data.os).toMatchObject({ lastUpdatedAt: null, build: null });
    expect(data.os.type).toBeUndefined();
    expect(data.domain.lastUpdatedAt).toBeNull();
    expect(data.mac).toMatchObject({ lastUpdatedAt: null, addresses: null });
  });

  it('names the field of a single response and of every kind of bad item', async () => {
    const user = await world.user();
    const single = await world.respond(user, {
      id: 'p',
      typeId: 'PROCESS',
      path: '/bin/x',
      isRunning: 'yes',
    });
    expect(single.status).toBe(400);
    expect(single.body.error.cause.field).toBe('isRunning');
    const cases: [unknown, string][] = [
      [{ id: 'x', typeId: 'MFA' }, '[0].typeId'],
      [{ typeId: 'DOMAIN', domain: 'corp' }, '[0].id'],
      [{ id: 'o', typeId: 'OS', version: '1.0.0' }, '[0].type'],
      [{ id: 'p', typeId: 'PROCESS', path: '/bin/x', isRunning: true, hash: 'short' }, '[0].hash'],
      [
        { id: 'p', typeId: 'PROCESS', path: '/bin/x', isRunning: true, signerFingerprints: [SIGNER, 'zz'] },
        '[0].signerFingerprints[1]',
      ],
      [{ id: 'e', typeId: 'ENDPOINT_STATE', woken: 1 }, '[0].woken'],
      ['text', '[0]'],
    ];
    for (const [item, field] of cases) {
      const res = await world.respondBulk(user, [item]);
      expect(res.status, JSON.stringify(item)).toBe(400);
      expect(res.body.error.cause.field).toBe(field);
    }
    const tooMany = await world.respondBulk(
      user,
      Array.from({ length: 1001 }, () => ({ id: 'd', typeId: 'DOMAIN', domain: '' })),
    );
    expect(tooMany.status).toBe(400);
  });

  it('keeps process reports only for binaries a check asks about, and forgets them once no check does', async () => {
    const checkId = await world.check({
      typeId: 'PROCESS',
      process: { osType: 'Linux', path: '/opt/asked' },
    });
    const user = await world.user();
    const junk = Array.from({ length: 999 }, (_, i) => ({
      id: checkId,
      typeId: 'PROCESS',
      path: `/tmp/made-up-${i}`,
      isRunning: true,
    }));
    const asked = { id: checkId, typeId: 'PROCESS', path: '/opt/asked', isRunning: true };
    expect((await world.respondBulk(user, [...junk, asked])).status).toBe(201);
    const paths = async () =>
      ((await world.postureData(user.id)).body.data.processes as { path: string }[]).map((p) => p.path);
    expect(await paths()).toEqual(['/opt/asked']);

    // the check now asks about another binary: the old report goes at the device's next report
    const moved = await world.admin.patch(`${MGMT}/posture-checks/${checkId}`, {
      process: { osType: 'Linux', path: '/opt/other' },
    });
    expect(moved.status).toBe(200);
    expect((await world.respond(user, { id: 'e', typeId: 'ENDPOINT_STATE', woken: false })).status).toBe(201);
    expect(await paths()).toEqual([]);
  });

  it('shows posture data in OpenZiti’s shape, stamped with the controller’s clock', async () => {
    // process reports are kept for binaries some check asks about
    await world.create('posture-checks', {
      name: unique('edr'),
      typeId: 'PROCESS_MULTI',
      semantic: 'AnyOf',
      processes: [
        { osType: 'Windows', path: 'c:\\EDR.exe' },
        { osType: 'Linux', path: '/usr/bin/edr' },
      ],
    });
    const user = await world.user();
    const before = Date.now();
    const res = await world.respondBulk(user, [
      { id: 'os-check', typeId: 'OS', type: 'Windows', version: '10.0.19045', build: '3803' },
      { id: 'mac-check', typeId: 'MAC', macAddresses: ['AA-BB-CC-DD-EE-FF', 'aa:bb:cc:dd:ee:ff'] },
      { id: 'domain-check', typeId: 'DOMAIN', domain: 'CORP' },
      {
        id: 'proc-check',
        typeId: 'PROCESS',
        path: 'C:\\edr.exe',
        isRunning: true,
        hash: HASH,
        signerFingerprints: [SIGNER],
      },
      { id: 'proc-check', typeId: 'PROCESS', path: '/usr/bin/edr', isRunning: false },
      { id: 'random', typeId: 'ENDPOINT_STATE', woken: true, unlocked: false },
    ]);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { services: [] }, meta: {} });
    const data = (await world.postureData(user.id)).body.data;
    expect(data.os).toMatchObject({
      postureCheckId: 'os-check',
      timedOut: false,
      type: 'windows',
      version: '10.0.19045',
      build: '3803',
    });
    expect(Date.parse(data.os.lastUpdatedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(data.mac).toMatchObject({ postureCheckId: 'mac-check', addresses: ['aabbccddeeff'] });
    expect(data.domain).toMatchObject({ postureCheckId: 'domain-check', domain: 'CORP' });
    expect(data.processes).toEqual([
      expect.objectContaining({
        path: '/usr/bin/edr',
        isRunning: false,
        binaryHash: '',
        signerFingerprints: [],
      }),
      expect.objectContaining({
        path: 'C:\\edr.exe',
        isRunning: true,
        binaryHash: HASH,
        signerFingerprints: [SIGNER],
        postureCheckId: 'proc-check',
      }),
    ]);
    const session = data.apiSessionPostureData[user.apiSessionId];
    expect(session.mfa).toEqual({
      apiSessionId: user.apiSessionId,
      passedAt: null,
      passedMfa: false,
      passedOnWake: false,
      passedOnUnlock: false,
    });
    expect(session.endpointState.unlockedAt).toBeNull();
    expect(Date.parse(session.endpointState.wokenAt)).toBeGreaterThanOrEqual(before - 5);

    // A newer report for the same binary replaces the older one; other binaries stay.
    await world.respond(user, {
      id: 'proc-check',
      typeId: 'PROCESS',
      path: '/usr/bin/edr',
      isRunning: true,
      hash: HASH,
    });
    const processes = (await world.postureData(user.id)).body.data.processes;
    expect(processes).toHaveLength(2);
    expect(processes[0]).toMatchObject({ path: '/usr/bin/edr', isRunning: true, binaryHash: HASH });
  });

  it('moves only lastUpdatedAt for a report repeating the last one, and decides again on a changed one', async () => {
    const tag = unique('repeat');
    const checkId = await world.check({ typeId: 'DOMAIN', domains: ['corp'], roleAttributes: [tag] });
    const serviceId = await world.create('services', { name: unique('svc'), roleAttributes: [tag] });
    await world.policy({
      identityRoles: [`#${tag}`],
      serviceRoles: [`#${tag}`],
      postureCheckRoles: [`#${tag}`],
    });
    const user = await world.user([tag]);
    const report = [
      { id: checkId, typeId: 'DOMAIN', domain: 'corp' },
      { id: 'os-check', typeId: 'OS', type: 'Linux', version: '6.1.0' },
      { id: 'e', typeId: 'ENDPOINT_STATE', woken: false, unlocked: false },
    ];
    expect((await world.respondBulk(user, report)).status).toBe(201);
    const first = (await world.postureData(user.id)).body.data;
    const session = await world.session(user, serviceId);
    expect(session.status).toBe(201);

    // The time held moves once a second at most (SQLite's store; PostgreSQL's moves on every report).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = await world.respondBulk(user, report);
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ data: { services: [] }, meta: {} });
    const second = (await world.postureData(user.id)).body.data;
    expect(Date.parse(second.domain.lastUpdatedAt)).toBeGreaterThan(Date.parse(first.domain.lastUpdatedAt));
    expect(Date.parse(second.os.lastUpdatedAt)).toBeGreaterThan(Date.parse(first.os.lastUpdatedAt));
    const { lastUpdatedAt: _d, ...domainAfter } = second.domain;
    const { lastUpdatedAt: _f, ...domainBefore } = first.domain;
    expect(domainAfter).toEqual(domainBefore);
    expect((await world.session(user, serviceId)).body.data.id, 'the same session').toBe(
      session.body.data.id,
    );

    // Leaving the domain is news: stored, evaluated, the session revoked and a new one refused.
    const moved = await world.respondBulk(user, [{ id: checkId, typeId: 'DOMAIN', domain: 'home' }]);
    expect(moved.status).toBe(201);
    expect((await world.postureData(user.id)).body.data.domain.domain).toBe('home');
    expect((await world.getSession(user, session.body.data.id)).status).toBe(404);
    expect((await world.session(user, serviceId)).status).toBe(409);
  });

  it('answers 404 for an unknown identity', async () => {
    for (const path of ['posture-data', 'failed-service-requests']) {
      const res = world.checked(
        'GET',
        `${MGMT}/identities/{id}/${path}`,
        await world.admin.get(`${MGMT}/identities/nobody/${path}`),
      );
      expect(res.status).toBe(404);
    }
  });

  it('lists the services a wake puts into MFA grace, with 300 seconds remaining', async () => {
    const attr = unique('wake');
    const checkId = await world.check({
      typeId: 'MFA',
      timeoutSeconds: 3600,
      promptOnWake: true,
      roleAttributes: [`${attr}-c`],
    });
    const serviceId = await world.service();
    await world.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`#${attr}-c`],
    });
    const user = await world.user([attr]);

    // Before TOTP was passed a wake starts no grace.
    expect(
      (await world.respond(user, { id: 'state', typeId: 'ENDPOINT_STATE', woken: true })).body.data.services,
    ).toEqual([]);
    await world.passMfa(user);
    const granted = await world.session(user, serviceId);
    expect(granted.status).toBe(201);
    const unlocked = await world.respond(user, { id: 'state', typeId: 'ENDPOINT_STATE', unlocked: true });
    expect(unlocked.body.data.services).toEqual([]);
    const woken = await world.respond(user, { id: 'state', typeId: 'ENDPOINT_STATE', woken: true });
    expect(woken.body.data.services).toEqual([
      {
        id: serviceId,
        name: expect.any(String),
        postureQueryType: 'MFA',
        timeout: 3600,
        timeoutRemaining: 300,
      },
    ]);
    // Inside the grace the check still passes, with at most 300 seconds left.
    const query = (await world.serviceOf(user, serviceId)).postureQueries[0].postureQueries[0];
    expect(query).toMatchObject({
      id: checkId,
      isPassing: true,
      promptOnWake: true,
      promptOnUnlock: false,
      timeout: 3600,
    });
    expect(query.timeoutRemaining).toBeGreaterThan(290);
    expect(query.timeoutRemaining).toBeLessThanOrEqual(300);
    expect(Date.parse(query.updatedAt)).toBeGreaterThan(Date.parse(query.createdAt));
    expect((await world.getSession(user, granted.body.data.id)).status).toBe(200);
    const mfa = (await world.postureData(user.id)).body.data.apiSessionPostureData[user.apiSessionId].mfa;
    // Both events came after the pass: TOTP has not been entered on wake or on unlock yet.
    expect(mfa).toMatchObject({ passedMfa: true, passedOnWake: false, passedOnUnlock: false });
  });

  it('forgets an API session’s posture data at logout and an identity’s when it is deleted', async () => {
    const user = await world.user();
    const second = await world.login(user.name);
    await world.respond(user, { id: 'd', typeId: 'DOMAIN', domain: 'corp' });
    expect(Object.keys((await world.postureData(user.id)).body.data.apiSessionPostureData).sort()).toEqual(
      [user.apiSessionId, second.apiSessionId].sort(),
    );
    expect((await second.api.delete(`${CLIENT}/current-api-session`)).status).toBe(200);
    const after = (await world.postureData(user.id)).body.data;
    expect(Object.keys(after.apiSessionPostureData)).toEqual([user.apiSessionId]);
    expect(after.domain.domain).toBe('corp');

    expect((await world.admin.delete(`${MGMT}/identities/${user.id}`)).status).toBe(200);
    expect(await world.ctx.store.posture.data.load(user.id)).toMatchObject({ domain: null, apiSessions: {} });
  });
});
