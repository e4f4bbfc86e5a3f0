import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestController } from '../helpers/controller.js';
import { CLIENT, MGMT, type Api } from '../helpers/api.js';
import type { ResponseSchemas } from '../helpers/openapi-check.js';
import { FakeClock, startEnrollment, startMfaTestbed, type MfaTestbed } from '../helpers/mfa.js';

/**
 * The enrollment states (none, unverified, verified, removed) one by one, and every status each MFA endpoint
 * answers, against the real controller. otplib plays the authenticator app; a fake clock keeps codes away from step boundaries.
 */
const MFA = `${CLIENT}/current-identity/mfa`;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const RECOVERY_CODE = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;

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

/** A 6-digit code that is certainly not the app's current one. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function mfaEnabled(id: string): Promise<boolean> {
  return (await admin.get(`${MGMT}/identities/${id}`)).body.data.isMfaEnabled;
}

describe('MFA enrollment, state table 3.1', () => {
  it('walks not started → started → not started → started → enrolled → not started, with each endpoint status', async () => {
    const { id, api } = await newUser('walker');

    // not started: everything about the enrollment is 404
    let res = await api.get(MFA);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    schemas.assert('GET', MFA, res);
    expect((await api.get(`${MFA}/qr-code`)).status).toBe(404);
    expect((await api.post(`${MFA}/verify`, { code: '123456' })).status).toBe(404);
    expect((await api.delete(MFA)).status).toBe(404);
    expect(await mfaEnabled(id)).toBe(false);

    // POST {} starts it: 201 with the recovery codes and the provisioning URL carrying the TOTP secret
    res = await api.post(MFA, {});
    expect(res.status).toBe(201);
    schemas.assert('POST', MFA, res);
    expect(res.body.data.recoveryCodes).toHaveLength(10);
    res = await api.post(MFA, {});
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('MFA_EXISTS');
    schemas.assert('POST', MFA, res);

    res = await api.get(MFA);
    expect(res.status).toBe(200);
    schemas.assert('GET', MFA, res);
    expect(res.body.data.isVerified).toBe(false);
    expect(res.body.data.recoveryCodes).toHaveLength(10);
    for (const code of res.body.data.recoveryCodes) expect(code).toMatch(RECOVERY_CODE);
    expect(res.body.data.provisioningUrl).toMatch(
      /^otpauth:\/\/totp\/Postern:walker\?issuer=Postern&secret=[A-Z2-7]{32}&algorithm=SHA1&digits=6&period=30$/,
    );
    expect(await mfaEnabled(id)).toBe(false);

    const png = await fetch(tc.url + `${MFA}/qr-code`, { headers: { 'zt-session': api.token! } });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(0, 8)).toEqual(PNG_SIGNATURE);

    // started → not started: DELETE with no code abandons it
    res = await api.delete(MFA);
    expect(res.status).toBe(200);
    schemas.assert('DELETE', MFA, res);
    expect((await api.get(MFA)).status).toBe(404);
    expect(events).toContain(`removed ${id}`);

    // not started → started again, then verify: only a current TOTP code will do
    const { app, recoveryCodes } = await startEnrollment(api);
    res = await api.post(`${MFA}/verify`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('COULD_NOT_VALIDATE');
    schemas.assert('POST', `${MFA}/verify`, res);
    const code = await app.code(clock.now());
    res = await api.post(`${MFA}/verify`, { code: wrong(code) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MFA_INVALID_TOKEN');
    schemas.assert('POST', `${MFA}/verify`, res);
    res = await api.post(`${MFA}/verify`, { code: recoveryCodes[0] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MFA_INVALID_TOKEN');

    res = await api.post(`${MFA}/verify`, { code });
    expect(res.status).toBe(200);
    schemas.assert('POST', `${MFA}/verify`, res);
    const session = (await api.get(`${CLIENT}/current-api-session`)).body.data;
    expect(session).toMatchObject({ isMfaRequired: true, isMfaComplete: true, authQueries: [] });
    expect(events).toContain(`passed ${id} ${session.id}`);
    expect(await mfaEnabled(id)).toBe(true);

    // enrolled: status only, never the secret or the codes
    res = await api.get(MFA);
    schemas.assert('GET', MFA, res);
    expect(res.body.data).toMatchObject({ isVerified: true, recoveryCodesRemaining: 10 });
    expect(res.body.data.recoveryCodes).toBeUndefined();
    expect(res.body.data.provisioningUrl).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(app.secret);
    res = await api.get(`${MFA}/qr-code`);
    expect(res.status).toBe(404);
    schemas.assert('GET', `${MFA}/qr-code`, res);
    expect((await api.post(`${MFA}/verify`, { code })).status).toBe(404);
    expect((await api.post(MFA, {})).status).toBe(409);

    // enrolled → not started: DELETE needs a code
    clock.nextStep();
    res = await api.delete(MFA);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MFA_INVALID_TOKEN');
    schemas.assert('DELETE', MFA, res);
    res = await api.delete(MFA, { code: await app.code(clock.now()) });
    expect(res.status).toBe(200);
    expect((await api.get(MFA)).status).toBe(404);
    expect(await mfaEnabled(id)).toBe(false);
  });

  it('escapes the identity name in the provisioning URL', async () => {
    const { api } = await newUser('Ann Lee: laptop');
    const { status } = await startEnrollment(api);
    expect(status.body.data.provisioningUrl).toMatch(
      /^otpauth:\/\/totp\/Postern:Ann%20Lee%3A%20laptop\?issuer=Postern&secret=/,
    );
  });

  it('accepts POST with no body at all, like OpenZiti clients send it', async () => {
    const { api } = await newUser('bodiless');
    const res = await fetch(tc.url + MFA, { method: 'POST', headers: { 'zt-session': api.token! } });
    expect(res.status).toBe(201);
  });
});
