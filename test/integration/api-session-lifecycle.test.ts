/**
 * An API session lives only as long as the credentials and second factor it was opened with: a password
 * change, the authenticator's deletion, MFA being turned on, removed by the user or reset by an
 * administrator each end the identity's other API sessions (their edge sessions with them). Administrators
 * list, read and end API sessions through OpenZiti's `api-sessions` routes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import { enrollVerified, startMfaTestbed, type FakeClock, type MfaTestbed } from '../helpers/mfa.js';
import type { TestController } from '../helpers/controller.js';

let tc: TestController;
let admin: Api;
let clock: FakeClock;
let newUser: MfaTestbed['newUser'];

beforeAll(async () => ({ tc, admin, clock, newUser } = await startMfaTestbed()));
afterAll(() => tc.dispose());
beforeEach(() => clock.advance(6 * 60_000));

/** A second sign-in of the same user, as from another device. */
async function secondDevice(name: string): Promise<Api> {
  const api = new Api(tc.url);
  expect((await api.login(name, 'password-1', CLIENT)).status).toBe(200);
  return api;
}

const alive = async (api: Api) => (await api.get(`${CLIENT}/current-api-session`)).status === 200;

async function authenticatorOf(identityId: string): Promise<string> {
  const res = await admin.get(`${MGMT}/authenticators?limit=500`);
  return (res.body.data as { id: string; identityId: string }[]).find((a) => a.identityId === identityId)!.id;
}

describe('credential changes end the other API sessions', () => {
  it('a password change by an administrator', async () => {
    const { id, api } = await newUser('pw-change');
    const other = await secondDevice('pw-change');
    const res = await admin.patch(`${MGMT}/authenticators/${await authenticatorOf(id)}`, {
      password: 'password-2',
    });
    expect(res.status).toBe(200);
    expect(await alive(api)).toBe(false);
    expect(await alive(other)).toBe(false);
    expect(await alive(admin), "the administrator's own session stays").toBe(true);
    expect((await new Api(tc.url).login('pw-change', 'password-2', CLIENT)).status).toBe(200);
  });

  it('an authenticator deleted', async () => {
    const { id, api } = await newUser('auth-deleted');
    expect((await admin.delete(`${MGMT}/authenticators/${await authenticatorOf(id)}`)).status).toBe(200);
    expect(await alive(api)).toBe(false);
  });

  it('MFA verified on one device ends the sessions that never proved it', async () => {
    const { api } = await newUser('mfa-on');
    const other = await secondDevice('mfa-on');
    await enrollVerified(api, clock);
    expect(await alive(api), 'the session that verified stays').toBe(true);
    expect(await alive(other)).toBe(false);
  });

  it('MFA removed by the user, and reset by an administrator', async () => {
    const { id, api } = await newUser('mfa-off');
    const { app } = await enrollVerified(api, clock);
    clock.nextStep();
    const partial = new Api(tc.url);
    await partial.login('mfa-off', 'password-1', CLIENT);
    const removed = await api.delete(`${CLIENT}/current-identity/mfa`, { code: await app.code(clock.now()) });
    expect(removed.status).toBe(200);
    expect(await alive(api)).toBe(true);
    expect(await alive(partial)).toBe(false);

    await enrollVerified(api, clock);
    expect((await admin.delete(`${MGMT}/identities/${id}/mfa`)).status).toBe(200);
    expect(await alive(api), "an administrator's reset ends every session of the identity").toBe(false);
  });

  it('disabling and re-enabling does not bring a session back', async () => {
    const { id, api } = await newUser('toggled');
    expect((await admin.patch(`${MGMT}/identities/${id}`, { disabled: true })).status).toBe(200);
    expect((await admin.patch(`${MGMT}/identities/${id}`, { disabled: false })).status).toBe(200);
    expect(await alive(api)).toBe(false);
  });
});

describe('management api-sessions', () => {
  it('lists, reads and ends an API session; its token is never shown', async () => {
    const { id, api } = await newUser('listed');
    const mine = (await api.get(`${CLIENT}/current-api-session`)).body.data;
    const listed = await admin.get(`${MGMT}/api-sessions?limit=500`);
    expect(listed.status).toBe(200);
    const row = (listed.body.data as { id: string; identityId: string; token: string }[]).find(
      (s) => s.id === mine.id,
    );
    expect(row).toMatchObject({ identityId: id, token: '' });
    expect(JSON.stringify(listed.body)).not.toContain(api.token!);
    const one = await admin.get(`${MGMT}/api-sessions/${mine.id}`);
    expect(one.body.data).toMatchObject({
      id: mine.id,
      identity: { id, name: 'listed' },
      ipAddress: '127.0.0.1',
    });

    expect((await admin.delete(`${MGMT}/api-sessions/${mine.id}`)).status).toBe(200);
    expect(await alive(api)).toBe(false);
    expect((await admin.get(`${MGMT}/api-sessions/${mine.id}`)).status).toBe(404);
    expect((await admin.delete(`${MGMT}/api-sessions/${mine.id}`)).status).toBe(404);
    expect((await api.as(api.token).get(`${MGMT}/api-sessions`)).status).toBe(401);
  });
});

describe('authenticators', () => {
  it('parallel creation for one identity makes exactly one', async () => {
    const id = (await admin.post(`${MGMT}/identities`, { name: 'raced', type: 'User', isAdmin: false })).body
      .data.id as string;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        admin.post(`${MGMT}/authenticators`, {
          method: 'updb',
          identityId: id,
          username: `raced-${i}`,
          password: 'password-1',
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(7);
    const all = await admin.get(`${MGMT}/authenticators?limit=500`);
    expect((all.body.data as { identityId: string }[]).filter((a) => a.identityId === id)).toHaveLength(1);
  });
});
