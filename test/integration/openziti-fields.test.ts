/**
 * Fields OpenZiti's clients rely on, shaped as OpenZiti emits them: `cachedUpdatedAt` in the current API
 * session, `permissions` in identity detail and current identity, `endpointState` in posture data only once
 * a wake or unlock happened (then with both times), and MFA `passedAt` null before it is passed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT } from '../helpers/api.js';
import { PostureWorld } from '../helpers/posture-world.js';

let world: PostureWorld;
beforeAll(async () => (world = await PostureWorld.start()));
afterAll(() => world?.dispose());

describe('OpenZiti field shapes', () => {
  it('the current API session carries cachedUpdatedAt', async () => {
    const user = await world.user();
    const res = await user.api.get(`${CLIENT}/current-api-session`);
    expect(Date.parse(res.body.data.cachedUpdatedAt)).toBe(Date.parse(res.body.data.updatedAt));
  });

  it('identity detail and the current identity carry permissions', async () => {
    const user = await world.user();
    expect((await world.admin.get(`${MGMT}/identities/${user.id}`)).body.data.permissions).toEqual([]);
    expect((await user.api.get(`${CLIENT}/current-identity`)).body.data.permissions).toEqual([]);
  });

  it('posture data shows endpointState only after a wake or unlock, then with both times', async () => {
    const user = await world.user();
    await world.respondBulk(user, [{ id: 'os', typeId: 'OS', type: 'Linux', version: '6.1.0' }]);
    let session = (await world.postureData(user.id)).body.data.apiSessionPostureData[user.apiSessionId];
    expect(session.endpointState).toBeUndefined();
    expect(session.mfa.passedAt).toBeNull();

    await world.respondBulk(user, [{ id: 'e', typeId: 'ENDPOINT_STATE', unlocked: true }]);
    session = (await world.postureData(user.id)).body.data.apiSessionPostureData[user.apiSessionId];
    expect(session.endpointState.wokenAt).toBeNull();
    expect(Date.parse(session.endpointState.unlockedAt)).toBeGreaterThan(0);
  });
});
