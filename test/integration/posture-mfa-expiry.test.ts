/**
 * MFA state changing with time and with enrollment: a timeout revokes the session on an exact timer (measured
 * with real time, with slack for a busy machine), and removing MFA revokes at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostureWorld, unique } from '../helpers/posture-world.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('MFA checks over time', () => {
  let world: PostureWorld;
  beforeAll(async () => {
    world = await PostureWorld.start();
  });
  afterAll(() => world?.dispose());

  async function mfaGuarded(check: Record<string, unknown>) {
    const attr = unique('mfa');
    await world.check({ typeId: 'MFA', roleAttributes: [`${attr}-c`], ...check });
    const serviceId = await world.service();
    await world.policy({
      identityRoles: [`#${attr}`],
      serviceRoles: [`@${serviceId}`],
      postureCheckRoles: [`#${attr}-c`],
    });
    return { serviceId, user: await world.user([attr]) };
  }

  it('revokes the session about when timeoutSeconds has passed since the TOTP code', async () => {
    const { serviceId, user } = await mfaGuarded({ timeoutSeconds: 2 });
    const passedAt = Date.now();
    await world.passMfa(user);
    const granted = await world.session(user, serviceId);
    expect(granted.status).toBe(201);
    const query = (await world.serviceOf(user, serviceId)).postureQueries[0].postureQueries[0];
    expect(query).toMatchObject({ isPassing: true, timeout: 2 });
    expect(query.timeoutRemaining).toBeGreaterThanOrEqual(1);
    expect(Date.parse(query.timeoutAt)).toBeGreaterThan(passedAt);
    const before = await world.lastChangeAt(user);

    let revokedAt = 0;
    while (Date.now() - passedAt < 6000) {
      if ((await world.getSession(user, granted.body.data.id)).status === 404) {
        revokedAt = Date.now();
        break;
      }
      await sleep(50);
    }
    expect(revokedAt, 'session still there 6 s after the pass').toBeGreaterThan(0);
    const elapsed = revokedAt - passedAt;
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    // within about a second of the expiry (2 s), with slack for a loaded machine
    expect(elapsed).toBeLessThan(3500);
    expect(Date.parse(await world.lastChangeAt(user))).toBeGreaterThan(Date.parse(before));
    const refused = await world.session(user, serviceId);
    expect(refused.status).toBe(409);
    const failure = (await world.failures(user.id)).body.data.at(-1).policyFailures[0].checks[0];
    expect(failure).toMatchObject({
      postureCheckType: 'MFA',
      actualValue: { passedMfa: true, timedOut: true },
      expectedValue: { passedMfa: true, timedOut: false },
      criteria: { timeoutSeconds: 2, timeoutRemainingSeconds: 0 },
    });

    // A new TOTP pass starts the clock again.
    await world.passMfa(user);
    expect((await world.session(user, serviceId)).status).toBe(201);
  });

  it('revokes every session needing MFA when the identity’s MFA is removed', async () => {
    const { serviceId, user } = await mfaGuarded({ timeoutSeconds: -1 });
    await world.passMfa(user);
    const granted = await world.session(user, serviceId);
    expect(granted.status).toBe(201);
    await world.ctx.events.publish('mfa.removed', user.id);
    expect((await world.getSession(user, granted.body.data.id)).status).toBe(404);
    const mfa = (await world.postureData(user.id)).body.data.apiSessionPostureData[user.apiSessionId].mfa;
    expect(mfa).toMatchObject({ passedMfa: false, passedAt: null });
    expect((await world.session(user, serviceId)).status).toBe(409);
  });

  it('does not carry a TOTP pass over to a new API session', async () => {
    const { serviceId, user } = await mfaGuarded({ timeoutSeconds: -1 });
    await world.passMfa(user);
    expect((await world.session(user, serviceId)).status).toBe(201);
    const again = { ...user, ...(await world.login(user.name)) };
    expect((await world.session(again, serviceId)).status).toBe(409);
  });
});
