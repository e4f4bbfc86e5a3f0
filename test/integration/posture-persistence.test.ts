/**
 * What posture evaluation keeps: the last 50 refusals per identity, and everything (posture data, MFA
 * passes, sessions, failures) across a controller restart on the same data directory.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { PostureWorld, unique } from '../helpers/posture-world.js';
import { tempDir } from '../helpers/controller.js';
import { Api } from '../helpers/api.js';

describe('failed service requests', () => {
  let world: PostureWorld | undefined;
  afterAll(() => world?.dispose());

  it('keeps the last 50 of 60 refusals, oldest first', async () => {
    world = await PostureWorld.start();
    const attr = unique('fail');
    await world.check({ typeId: 'DOMAIN', domains: ['corp'], roleAttributes: [`${attr}-c`] });
    const first = await world.service([`${attr}-s`]);
    const second = await world.service([`${attr}-s`]);
    await world.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`#${attr}-s`],
      postureCheckRoles: [`#${attr}-c`],
    });
    const user = await world.user([attr]);
    // 10 refusals for the first service, then 50 for the second: only the second's may remain.
    for (let i = 0; i < 60; i++)
      expect((await world.session(user, i < 10 ? first : second)).status).toBe(409);

    const records = (await world.failures(user.id)).body.data as { serviceId: string; when: string }[];
    expect(records).toHaveLength(50);
    expect(records.every((r) => r.serviceId === second)).toBe(true);
    const times = records.map((r) => Date.parse(r.when));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });
});

describe('a controller restart', () => {
  const dataDir = tempDir('postern-posture-restart-');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps posture data, MFA passes, sessions and failures', async () => {
    const before = await PostureWorld.start({ dataDir });
    const attr = unique('keep');
    const checkId = await before.check({ typeId: 'MFA', timeoutSeconds: -1, roleAttributes: [`${attr}-c`] });
    const serviceId = await before.service();
    await before.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`#${attr}-c`],
    });
    const user = await before.user([attr]);
    await before.respondBulk(user, [
      { id: 'os', typeId: 'OS', type: 'Linux', version: '6.1.0', build: '' },
      { id: 'mac', typeId: 'MAC', macAddresses: ['aa:bb:cc:dd:ee:ff'] },
      { id: 'proc', typeId: 'PROCESS', path: '/usr/bin/edr', isRunning: true },
      { id: 'state', typeId: 'ENDPOINT_STATE', unlocked: true },
    ]);
    expect((await before.session(user, serviceId)).status).toBe(409);
    await before.passMfa(user);
    const granted = (await before.session(user, serviceId)).body.data.id as string;
    const data = (await before.postureData(user.id)).body.data;
    const failures = (await before.failures(user.id)).body.data;
    expect(data.apiSessionPostureData[user.apiSessionId].mfa.passedMfa).toBe(true);
    await before.controller.close();

    const after = await PostureWorld.start({ dataDir });
    try {
      expect((await after.postureData(user.id)).body.data).toEqual(data);
      expect((await after.failures(user.id)).body.data).toEqual(failures);
      // The API session survived too, so the client carries on where it was.
      user.api = new Api(after.controller.url, user.api.token);
      expect((await after.getSession(user, granted)).status).toBe(200);
      const query = (await after.serviceOf(user, serviceId)).postureQueries[0].postureQueries[0];
      expect(query).toMatchObject({ id: checkId, isPassing: true });
    } finally {
      await after.controller.close();
    }
  });
});

describe('timers after a restart', () => {
  const dataDir = tempDir('postern-posture-rearm-');
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('re-arms an MFA timeout that was running when the controller stopped', async () => {
    const before = await PostureWorld.start({ dataDir });
    const attr = unique('rearm');
    await before.check({ typeId: 'MFA', timeoutSeconds: 3, roleAttributes: [`${attr}-c`] });
    const serviceId = await before.service();
    await before.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`#${attr}-c`],
    });
    const user = await before.user([attr]);
    const passedAt = Date.now();
    await before.passMfa(user);
    const granted = (await before.session(user, serviceId)).body.data.id as string;
    await before.controller.close();

    const after = await PostureWorld.start({ dataDir });
    try {
      user.api = new Api(after.controller.url, user.api.token);
      let status = 200;
      while (status === 200 && Date.now() - passedAt < 8000) {
        status = (await after.getSession(user, granted)).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(404);
      expect(Date.now() - passedAt).toBeGreaterThanOrEqual(2900);
    } finally {
      await after.controller.close();
    }
  });
});
