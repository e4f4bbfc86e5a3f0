import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestController } from '../helpers/controller.js';
import { Api, CLIENT } from '../helpers/api.js';
import type { ResponseSchemas } from '../helpers/openapi-check.js';
import {
  FakeClock,
  enrollVerified,
  rawRequest,
  startEnrollment,
  startMfaTestbed,
  type MfaTestbed,
} from '../helpers/mfa.js';

/**
 * Recovery codes through the real controller: shown at enrollment, accepted once in place of a TOTP,
 * listed (header or a `{code}` body on the GET) and replaced so the old set stops working.
 */
const MFA = `${CLIENT}/current-identity/mfa`;

let tc: TestController;
let schemas: ResponseSchemas;
let clock: FakeClock;
let newUser: MfaTestbed['newUser'];

beforeAll(async () => ({ tc, schemas, clock, newUser } = await startMfaTestbed()));
afterAll(() => tc.dispose());
// Each test's deliberate failures would otherwise still count in the next test's attempt window.
beforeEach(() => clock.advance(6 * 60_000));

describe('recovery codes', () => {
  it('are accepted once, listed, and replaced so the old ones stop working', async () => {
    const { api } = await newUser('recoverer');
    const { app, recoveryCodes: first } = await enrollVerified(api, clock);

    const second = new Api(tc.url);
    await second.login('recoverer', 'password-1', CLIENT);
    let res = await second.post(`${CLIENT}/authenticate/mfa`, { code: first[0] });
    expect(res.status).toBe(200);
    expect((await second.get(`${CLIENT}/current-identity`)).status).toBe(200);

    const third = new Api(tc.url);
    await third.login('recoverer', 'password-1', CLIENT);
    res = await third.post(`${CLIENT}/authenticate/mfa`, { code: first[0] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MFA_INVALID_TOKEN');
    expect(res.body.error.message).toBe(
      'That recovery code was already used; each works once, use another one',
    );
    expect((await api.get(MFA)).body.data.recoveryCodesRemaining).toBe(9);

    clock.nextStep();
    res = await api.get(`${MFA}/recovery-codes`, { 'mfa-validation-code': await app.code(clock.now()) });
    expect(res.status).toBe(200);
    schemas.assert('GET', `${MFA}/recovery-codes`, res);
    expect(res.body.data.recoveryCodes).toEqual(first.slice(1));

    // Postern's other form: the code in a JSON body on the GET (here a recovery code, typed loosely)
    const raw = await rawRequest(tc.url, 'GET', `${MFA}/recovery-codes`, {
      token: api.token,
      body: { code: ` ${first[1]!.toLowerCase()} ` },
    });
    expect(raw.status).toBe(200);
    expect(raw.body.data.recoveryCodes).toEqual(first.slice(2));

    res = await api.get(`${MFA}/recovery-codes`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MFA_INVALID_TOKEN');
    schemas.assert('GET', `${MFA}/recovery-codes`, res);

    clock.nextStep();
    res = await api.post(`${MFA}/recovery-codes`, { code: await app.code(clock.now()) });
    expect(res.status).toBe(200);
    schemas.assert('POST', `${MFA}/recovery-codes`, res);
    const fresh: string[] = res.body.data.recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((c) => first.includes(c))).toEqual([]);
    expect((await api.get(MFA)).body.data.recoveryCodesRemaining).toBe(10);

    res = await third.post(`${CLIENT}/authenticate/mfa`, { code: first[2] });
    expect(res.status).toBe(400);
    res = await third.post(`${CLIENT}/authenticate/mfa`, { code: fresh[0] });
    expect(res.status).toBe(200);
  });

  it('need a verified enrollment', async () => {
    const { api } = await newUser('early-reader');
    await startEnrollment(api);
    let res = await api.get(`${MFA}/recovery-codes`, { 'mfa-validation-code': '123456' });
    expect(res.status).toBe(404);
    res = await api.post(`${MFA}/recovery-codes`, { code: '123456' });
    expect(res.status).toBe(404);
    schemas.assert('POST', `${MFA}/recovery-codes`, res);
  });
});
