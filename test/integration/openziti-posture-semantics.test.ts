/**
 * Posture semantics as OpenZiti has them, where Postern used to differ: versions by semver precedence
 * (a prerelease below its release), sha512 process hashes (what OpenZiti's C SDK reports) beside sha256, a
 * PROCESS report without `isRunning` meaning not running, role attributes stored as given. And one place
 * where Postern is stricter on purpose: two entries for one OS type in an OS check are a 400, not a guess.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MGMT } from '../helpers/api.js';
import { PostureWorld, unique } from '../helpers/posture-world.js';

const SHA256 = 'ab'.repeat(32);
const SHA512 = 'cd'.repeat(64);

let world: PostureWorld;
beforeAll(async () => (world = await PostureWorld.start()));
afterAll(() => world?.dispose());

/** A service behind one check, a user who must pass it, and whether the check passes after `report`. */
async function guarded(check: Record<string, unknown>) {
  const attr = unique('sem');
  const checkId = await world.check({ ...check, roleAttributes: [`${attr}-check`] });
  const serviceId = await world.service();
  await world.policy({
    identityRoles: [`#${attr}`],
    serviceRoles: [`@${serviceId}`],
    postureCheckRoles: [`#${attr}-check`],
  });
  const user = await world.user([attr]);
  return {
    checkId,
    async passesAfter(report: Record<string, unknown>): Promise<boolean> {
      const res = await world.respondBulk(user, [{ id: checkId, ...report }]);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return (await world.serviceOf(user, serviceId)).postureQueries[0].isPassing as boolean;
    },
    failureReason: async () => {
      await world.session(user, serviceId);
      return JSON.stringify((await world.failures(user.id)).body.data);
    },
  };
}

describe('OpenZiti posture semantics', () => {
  it('compares versions by semver: 5.15.0-76-generic is below 5.15.0; Postern’s split report passes', async () => {
    const g = await guarded({ typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['>=5.15.0'] }] });
    expect(
      await g.passesAfter({ typeId: 'OS', type: 'Linux', version: '5.15.0-76-generic', build: '' }),
    ).toBe(false);
    // what Postern's Linux agent reports for that kernel
    expect(await g.passesAfter({ typeId: 'OS', type: 'Linux', version: '5.15.0', build: '76-generic' })).toBe(
      true,
    );
  });

  it('accepts sha512 process hashes, matching a report against configured hashes of its own length', async () => {
    const g = await guarded({
      typeId: 'PROCESS',
      process: { osType: 'Linux', path: '/usr/bin/edr', hashes: [SHA256, SHA512] },
    });
    const report = { typeId: 'PROCESS', path: '/usr/bin/edr', isRunning: true };
    expect(await g.passesAfter({ ...report, hash: SHA512 })).toBe(true);
    expect(await g.passesAfter({ ...report, hash: 'ef'.repeat(64) })).toBe(false);
    expect(await g.passesAfter({ ...report, hash: SHA256 })).toBe(true);

    const only256 = await guarded({
      typeId: 'PROCESS',
      process: { osType: 'Linux', path: '/usr/bin/edr', hashes: [SHA256] },
    });
    expect(await only256.passesAfter({ ...report, hash: SHA512 })).toBe(false);
    expect(await only256.failureReason()).toContain('the check lists no sha512 hashes');
  });

  it('reads a PROCESS report without isRunning as not running, not as a bad request', async () => {
    const g = await guarded({ typeId: 'PROCESS', process: { osType: 'Linux', path: '/usr/bin/agentd' } });
    expect(await g.passesAfter({ typeId: 'PROCESS', path: '/usr/bin/agentd', hash: SHA256 })).toBe(false);
    expect(await g.passesAfter({ typeId: 'PROCESS', path: '/usr/bin/agentd', isRunning: true })).toBe(true);
  });

  it('refuses two entries for one OS type in an OS check, naming the second', async () => {
    const res = await world.admin.post(`${MGMT}/posture-checks`, {
      name: unique('dup-os'),
      typeId: 'OS',
      operatingSystems: [
        { type: 'Windows', versions: ['>=10.0.19041'] },
        { type: 'Linux', versions: ['>=5.0.0'] },
        { type: 'WINDOWS', versions: ['>=10.0.22000'] },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.cause).toMatchObject({ field: 'operatingSystems[2].type' });
    expect(res.body.error.cause.reason).toContain('operatingSystems[0]');
  });

  it('stores role attributes as given: `#` is role syntax, not part of an attribute', async () => {
    const id = await world.service(['#hashed', 'plain']);
    const stored = await world.admin.get(`${MGMT}/services/${id}`);
    expect(stored.body.data.roleAttributes).toEqual(['#hashed', 'plain']);
  });
});
