import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestController } from '../helpers/controller.js';
import { Api, CLIENT, MGMT } from '../helpers/api.js';
import type { ResponseSchemas } from '../helpers/openapi-check.js';
import {
  AuthenticatorApp,
  FakeClock,
  enrollVerified,
  startEnrollment,
  startMfaTestbed,
  type MfaTestbed,
} from '../helpers/mfa.js';

/**
 * Removal from every side: the user with a code, an administrator at any time, the identity's deletion,
 * and the same enrollment routes mirrored on the management API.
 */
const MFA = `${CLIENT}/current-identity/mfa`;

let tc: TestController;
let admin: Api;
let schemas: ResponseSchemas;
let clock: FakeClock;
let events: string[];
let newUser: MfaTestbed['newUser'];

beforeAll(async () => ({ tc, admin, schemas, clock, events, newUser } = await startMfaTestbed()));
afterAll(() => tc.dispose());
// Each test's deliberate failures would otherwise still count in the next test's attempt window.
beforeEach(() => clock.advance(6 * 60_000));

async function mfaEnabled(id: string): Promise<boolean> {
  return (await admin.get(`${MGMT}/identities/${id}`)).body.data.isMfaEnabled;
}

describe('removal', () => {
  it('removes a verified enrollment with a recovery code from the mfa-validation-code header, in any case, without dashes', async () => {
    const { id, api } = await newUser('header-remover');
    const { recoveryCodes } = await enrollVerified(api, clock);
    const typed = recoveryCodes[3]!.replaceAll('-', '').toLowerCase();
    const res = await api.delete(MFA, undefined, { 'mfa-validation-code': typed });
    expect(res.status).toBe(200);
    expect(await mfaEnabled(id)).toBe(false);
    expect(events).toContain(`removed ${id}`);
  });

  it('removes an enrollment at any time without a code; a non-admin is refused', async () => {
    const { id, api } = await newUser('reset-me');
    await enrollVerified(api, clock);
    const { api: other } = await newUser('not-an-admin');

    let res = await other.delete(`${MGMT}/identities/${id}/mfa`);
    expect(res.status).toBe(401);
    expect(await mfaEnabled(id)).toBe(true);

    res = await admin.delete(`${MGMT}/identities/${id}/mfa`);
    expect(res.status).toBe(200);
    schemas.assert('DELETE', `${MGMT}/identities/{id}/mfa`, res);
    expect(await mfaEnabled(id)).toBe(false);
    expect(events).toContain(`removed ${id}`);
    // the reset ends the identity's sessions: whoever held the account must sign in again
    expect((await api.get(MFA)).status).toBe(401);

    // a later login owes no TOTP any more
    const later = new Api(tc.url);
    expect((await later.login('reset-me', 'password-1', CLIENT)).body.data.authQueries).toEqual([]);
    expect((await later.get(MFA)).status).toBe(404);

    // nothing left to remove is fine; an unverified enrollment goes too; an unknown identity is 404
    expect((await admin.delete(`${MGMT}/identities/${id}/mfa`)).status).toBe(200);
    await startEnrollment(later);
    expect((await admin.delete(`${MGMT}/identities/${id}/mfa`)).status).toBe(200);
    const again = new Api(tc.url);
    await again.login('reset-me', 'password-1', CLIENT);
    expect((await again.get(MFA)).status).toBe(404);
    res = await admin.delete(`${MGMT}/identities/no-such-identity/mfa`);
    expect(res.status).toBe(404);
    schemas.assert('DELETE', `${MGMT}/identities/{id}/mfa`, res);
  });

  it('deleting the identity deletes its MFA data', async () => {
    const { id, api } = await newUser('doomed');
    await enrollVerified(api, clock);
    expect((await admin.delete(`${MGMT}/identities/${id}`)).status).toBe(200);
    expect(await tc.ctx.store.mfa.get(id)).toBeUndefined();
    expect(await tc.ctx.store.mfa.recoveryCodes(id)).toEqual([]);
  });
});

describe('the management API mirrors /current-identity/mfa', () => {
  it('enrolls, verifies and removes through /edge/management/v1', async () => {
    const { id, api } = await newUser('mirror', MGMT);
    const M = `${MGMT}/current-identity/mfa`;
    expect((await api.get(M)).status).toBe(404);
    let res = await api.post(M, {});
    expect(res.status).toBe(201);
    schemas.assert('POST', M, res);
    res = await api.get(M);
    schemas.assert('GET', M, res);
    const app = new AuthenticatorApp(res.body.data.provisioningUrl);
    res = await api.post(`${M}/verify`, { code: await app.code(clock.now()) });
    expect(res.status).toBe(200);
    expect(await mfaEnabled(id)).toBe(true);
    clock.nextStep();
    res = await api.delete(M, undefined, { 'mfa-validation-code': await app.code(clock.now()) });
    expect(res.status).toBe(200);
    expect(await mfaEnabled(id)).toBe(false);
  });
});
