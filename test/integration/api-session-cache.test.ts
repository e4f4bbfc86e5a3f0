/**
 * The controller keeps API sessions it has read in memory (by token hash) and identities and posture data
 * too. Whatever ends or changes a session must take effect on the very next request, including when that
 * session has just been read (and so sits in the cache): sign-out, an administrator ending it, the identity
 * disabled or deleted, expiry, and the TOTP pass that completes a partial session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { enrollVerified, startMfaTestbed, type FakeClock, type MfaTestbed } from '../helpers/mfa.js';
import type { TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;
let clock: FakeClock;
let newUser: MfaTestbed['newUser'];

beforeAll(async () => ({ tc, admin, clock, newUser } = await startMfaTestbed()));
afterAll(() => tc.dispose());

const status = async (api: Api) => (await api.get(`${CLIENT}/current-api-session`)).status;

/** A user whose session has answered a few requests, so it is certainly cached. */
async function warmUser(name: string) {
  const user = await newUser(name);
  for (let i = 0; i < 3; i++) expect(await status(user.api)).toBe(200);
  return user;
}

describe('a cached API session never outlives its end', () => {
  it('sign-out', async () => {
    const { api } = await warmUser('cache-signout');
    expect((await api.delete(`${CLIENT}/current-api-session`)).status).toBe(200);
    expect(await status(api)).toBe(401);
  });

  it('an administrator ends it', async () => {
    const { api } = await warmUser('cache-admin-ends');
    const id = (await api.get(`${CLIENT}/current-api-session`)).body.data.id as string;
    expect((await admin.delete(`${MGMT}/api-sessions/${id}`)).status).toBe(200);
    expect(await status(api)).toBe(401);
  });

  it('the identity disabled, then deleted', async () => {
    const { id, api } = await warmUser('cache-disabled');
    expect((await admin.patch(`${MGMT}/identities/${id}`, { disabled: true })).status).toBe(200);
    expect(await status(api)).toBe(401);

    const other = await warmUser('cache-deleted');
    expect((await admin.delete(`${MGMT}/identities/${other.id}`)).status).toBe(200);
    expect(await status(other.api)).toBe(401);
  });

  it('a TOTP pass completes a cached partial session at once', async () => {
    const { api } = await warmUser('cache-mfa');
    const { app } = await enrollVerified(api, clock);
    clock.nextStep();
    const partial = new Api(tc.url);
    expect((await partial.login('cache-mfa', 'password-1', CLIENT)).status).toBe(200);
    // Read (and cached) while it still owes a code: full-access routes refuse it.
    expect((await partial.get(`${CLIENT}/current-api-session`)).status).toBe(200);
    expect((await partial.get(`${CLIENT}/services`)).status).toBe(401);
    const passed = await partial.post(`${CLIENT}/authenticate/mfa`, { code: await app.code(clock.now()) });
    expect(passed.status).toBe(200);
    expect((await partial.get(`${CLIENT}/services`)).status).toBe(200);
  });

  it('expiry: an idle session ends at its timeout even though it was cached', async () => {
    const { api } = await warmUser('cache-expiry');
    clock.advance(20 * 60_000);
    expect(await status(admin)).toBe(200);
    expect(await status(api), 'touched: 20 minutes idle is within the 30-minute timeout').toBe(200);
    clock.advance(20 * 60_000);
    expect(await status(admin)).toBe(200);
    clock.advance(11 * 60_000);
    expect(await status(admin)).toBe(200);
    expect(await status(api), '31 minutes idle').toBe(401);
  });
});
