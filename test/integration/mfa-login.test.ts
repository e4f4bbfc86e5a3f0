import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestController } from '../helpers/controller.js';
import { Api, CLIENT, MGMT, authPolicyBody } from '../helpers/api.js';
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
 * N-factor authentication: who is partially authenticated, what a partial session may call,
 * and how POST /authenticate/mfa, enrollment verification and an auth policy's requireTotp complete it.
 */
const MFA = `${CLIENT}/current-identity/mfa`;
const AUTH_MFA = `${CLIENT}/authenticate/mfa`;

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

/** Another session of an existing user. */
async function login(name: string, prefix = CLIENT): Promise<Api> {
  const api = new Api(tc.url);
  const res = await api.login(name, 'password-1', prefix);
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return api;
}

async function statusOf(api: Api, method: string, path: string, body?: unknown): Promise<number> {
  return (await api.request(method, path, body)).status;
}

describe('a verified enrollment makes every later login partial', () => {
  it('allows only the MFA login and enrollment routes until POST /authenticate/mfa passes', async () => {
    const { id } = await newUser('two-factor');
    const { app } = await enrollVerified(await login('two-factor'), clock);

    const partial = new Api(tc.url);
    const res = await partial.login('two-factor', 'password-1', CLIENT);
    expect(res.body.data).toMatchObject({ isMfaRequired: true, isMfaComplete: false });
    expect(res.body.data.authQueries).toEqual([
      expect.objectContaining({
        typeId: 'MFA',
        provider: 'ziti',
        httpMethod: 'POST',
        httpUrl: './authenticate/mfa',
        format: 'alphaNumeric',
        isTotpEnrolled: true,
      }),
    ]);

    // allowed while partial (each on the client API; both APIs share these routes)
    expect(await statusOf(partial, 'GET', `${CLIENT}/current-api-session`)).toBe(200);
    expect(await statusOf(partial, 'GET', MFA)).toBe(200);
    expect(await statusOf(partial, 'POST', MFA, {})).toBe(409);
    expect(await statusOf(partial, 'POST', `${MFA}/verify`, { code: '123456' })).toBe(404);
    expect(await statusOf(partial, 'GET', `${MFA}/qr-code`)).toBe(404);
    // refused while partial: everything else
    for (const [method, path] of [
      ['GET', `${CLIENT}/current-identity`],
      ['DELETE', MFA],
      ['GET', `${MFA}/recovery-codes`],
      ['POST', `${MFA}/recovery-codes`],
      ['GET', `${MGMT}/current-identity`],
    ] as const) {
      const refused = await partial.request(method, path, method === 'POST' ? { code: '123456' } : undefined);
      expect(refused.status, `${method} ${path}`).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHORIZED');
    }

    clock.nextStep();
    const code = await app.code(clock.now());
    let auth = await partial.post(AUTH_MFA, {
      code: String((Number(code) + 1) % 1_000_000).padStart(6, '0'),
    });
    expect(auth.status).toBe(400);
    expect(auth.body.error.code).toBe('MFA_INVALID_TOKEN');
    schemas.assert('POST', AUTH_MFA, auth);
    auth = await partial.post(AUTH_MFA, {});
    expect(auth.status).toBe(400);
    expect(auth.body.error.code).toBe('COULD_NOT_VALIDATE');
    auth = await partial.post(AUTH_MFA, { code });
    expect(auth.status).toBe(200);
    schemas.assert('POST', AUTH_MFA, auth);

    const session = (await partial.get(`${CLIENT}/current-api-session`)).body.data;
    expect(session).toMatchObject({ isMfaRequired: true, isMfaComplete: true, authQueries: [] });
    expect(events).toContain(`passed ${id} ${session.id}`);
    expect(await statusOf(partial, 'GET', `${CLIENT}/current-identity`)).toBe(200);

    // a full session may pass MFA again (posture checks with a timeout ask for it)
    clock.nextStep();
    expect((await partial.post(AUTH_MFA, { code: await app.code(clock.now()) })).status).toBe(200);
  });

  it('lets a partial session log out', async () => {
    await enrollVerified((await newUser('leaver')).api, clock);
    const partial = await login('leaver');
    expect(await statusOf(partial, 'DELETE', `${CLIENT}/current-api-session`)).toBe(200);
    expect(await statusOf(partial, 'GET', `${CLIENT}/current-api-session`)).toBe(401);
  });

  it('keeps a partial administrator out of the management API until MFA passes', async () => {
    const { api: first } = await newUser('mfa-admin', MGMT, { isAdmin: true });
    expect(await statusOf(first, 'POST', `${MGMT}/current-identity/mfa`, {})).toBe(201);
    const app = new AuthenticatorApp(
      (await first.get(`${MGMT}/current-identity/mfa`)).body.data.provisioningUrl,
    );
    expect(
      await statusOf(first, 'POST', `${MGMT}/current-identity/mfa/verify`, {
        code: await app.code(clock.now()),
      }),
    ).toBe(200);
    expect(await statusOf(first, 'GET', `${MGMT}/identities`)).toBe(200);

    const partial = await login('mfa-admin', MGMT);
    expect(await statusOf(partial, 'GET', `${MGMT}/identities`)).toBe(401);
    expect(await statusOf(partial, 'GET', `${MGMT}/mfa-audit-events`)).toBe(401);
    clock.nextStep();
    expect(
      await statusOf(partial, 'POST', `${MGMT}/authenticate/mfa`, { code: await app.code(clock.now()) }),
    ).toBe(200);
    expect(await statusOf(partial, 'GET', `${MGMT}/identities`)).toBe(200);
  });
});

describe('no verified enrollment', () => {
  it('an unfinished enrollment adds no requirement, and POST /authenticate/mfa is 409 MFA_NOT_ENROLLED', async () => {
    const { api } = await newUser('half-enrolled');
    let res = await api.post(AUTH_MFA, { code: '123456' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('MFA_NOT_ENROLLED');
    schemas.assert('POST', AUTH_MFA, res);

    await startEnrollment(api);
    res = await api.post(AUTH_MFA, { code: '123456' });
    expect(res.status).toBe(409);
    const later = new Api(tc.url);
    const login2 = await later.login('half-enrolled', 'password-1', CLIENT);
    expect(login2.body.data).toMatchObject({ isMfaRequired: false, authQueries: [] });
    expect(await statusOf(later, 'GET', `${CLIENT}/current-identity`)).toBe(200);
  });
});

describe('an auth policy with secondary.requireTotp', () => {
  it('keeps an unenrolled identity partial until it has enrolled and verified, in the same session', async () => {
    const policy = await admin.post(`${MGMT}/auth-policies`, authPolicyBody('totp-required', true));
    expect(policy.status).toBe(201);
    await newUser('must-enroll', MGMT, { authPolicyId: policy.body.data.id });

    const api = new Api(tc.url);
    const res = await api.login('must-enroll', 'password-1', CLIENT);
    expect(res.body.data.authQueries).toEqual([
      expect.objectContaining({ typeId: 'MFA', isTotpEnrolled: false }),
    ]);
    // "everything else", listing services included, is closed; the current identity stands in for it
    expect(await statusOf(api, 'GET', `${CLIENT}/current-identity`)).toBe(401);
    expect((await api.post(AUTH_MFA, { code: '123456' })).body.error.code).toBe('MFA_NOT_ENROLLED');

    expect(await statusOf(api, 'GET', MFA)).toBe(404);
    const { app } = await startEnrollment(api);
    expect(await statusOf(api, 'GET', `${MFA}/qr-code`)).toBe(200);
    expect(await statusOf(api, 'GET', `${CLIENT}/current-identity`)).toBe(401);
    expect(await statusOf(api, 'POST', `${MFA}/verify`, { code: await app.code(clock.now()) })).toBe(200);
    expect(await statusOf(api, 'GET', `${CLIENT}/current-identity`)).toBe(200);

    const next = new Api(tc.url);
    const again = await next.login('must-enroll', 'password-1', CLIENT);
    expect(again.body.data.authQueries).toEqual([
      expect.objectContaining({ typeId: 'MFA', isTotpEnrolled: true }),
    ]);
    expect(await statusOf(next, 'GET', `${CLIENT}/current-identity`)).toBe(401);
  });
});
