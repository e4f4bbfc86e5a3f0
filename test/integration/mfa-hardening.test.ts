import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestController } from '../helpers/controller.js';
import { Api, CLIENT } from '../helpers/api.js';
import type { ResponseSchemas } from '../helpers/openapi-check.js';
import {
  FakeClock,
  STEP_MS,
  enrollVerified,
  rawRequest,
  startMfaTestbed,
  type AuthenticatorApp,
  type MfaTestbed,
} from '../helpers/mfa.js';

/**
 * What Postern adds to OpenZiti's TOTP: single-use codes (RFC 6238 §5.2), a ±1 step window, and attempt
 * limits per identity and address, per address and per identity with a growing back-off. Attempts that must be told apart
 * by address come from other loopback addresses (127.0.0.x), which Linux routes to the controller too.
 */
const AUTH_MFA = `${CLIENT}/authenticate/mfa`;

let tc: TestController;
let clock: FakeClock;
let schemas: ResponseSchemas;
let newUser: MfaTestbed['newUser'];
let users = 0;

beforeAll(async () => ({ tc, clock, schemas, newUser } = await startMfaTestbed()));
afterAll(() => tc.dispose());
// Each test's deliberate failures would otherwise still count in the next test's attempt window.
beforeEach(() => clock.advance(6 * 60_000));

/** An enrolled user, and a way to open partial sessions that still owe the TOTP. */
async function enrolledUser(): Promise<{ app: AuthenticatorApp; partial: () => Promise<Api> }> {
  const name = `hardened-${++users}`;
  const { api } = await newUser(name);
  const { app } = await enrollVerified(api, clock);
  return {
    app,
    async partial() {
      const session = new Api(tc.url);
      await session.login(name, 'password-1', CLIENT);
      return session;
    },
  };
}

const codeAt = (app: AuthenticatorApp, steps: number) => app.code(clock.now() + steps * STEP_MS);

describe('single-use codes', () => {
  it('refuses the code that verified the enrollment, and any code once used, for the rest of its window', async () => {
    const { app, partial } = await enrolledUser();
    const enrollmentCode = await codeAt(app, 0);
    const session = await partial();
    let res = await session.post(AUTH_MFA, { code: enrollmentCode });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MFA_INVALID_TOKEN');

    // a step later the enrollment code is still inside the ±1 window, and still refused
    clock.nextStep();
    expect((await session.post(AUTH_MFA, { code: enrollmentCode })).status).toBe(400);
    const fresh = await codeAt(app, 0);
    expect((await session.post(AUTH_MFA, { code: fresh })).status).toBe(200);
    // replayed into another session: refused with a wrong code's status and code, and words that say why
    res = await (await partial()).post(AUTH_MFA, { code: fresh });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'MFA_INVALID_TOKEN',
      message: 'That code was already used; wait for the next one',
    });
    // a wrong code still gets the generic answer
    res = await (await partial()).post(AUTH_MFA, { code: '000000' === fresh ? '111111' : '000000' });
    expect(res.body.error.message).toBe('The MFA code is missing, invalid or already used');
  });

  it('accepts one step either side of now, never further, and never a step at or before the last accepted one', async () => {
    const { app, partial } = await enrolledUser();
    clock.advance(3 * STEP_MS);
    const session = await partial();
    expect((await session.post(AUTH_MFA, { code: await codeAt(app, -1) })).status).toBe(200);
    expect((await session.post(AUTH_MFA, { code: await codeAt(app, +1) })).status).toBe(200);
    // now's code is newer than the clock but older than the step just accepted
    expect((await session.post(AUTH_MFA, { code: await codeAt(app, 0) })).status).toBe(400);

    clock.advance(3 * STEP_MS);
    expect((await session.post(AUTH_MFA, { code: await codeAt(app, +2) })).status).toBe(400);
    expect((await session.post(AUTH_MFA, { code: await codeAt(app, -2) })).status).toBe(400);
    expect((await session.post(AUTH_MFA, { code: await codeAt(app, 0) })).status).toBe(200);
  });
});

describe('attempt limits', () => {
  /** POST /authenticate/mfa from a chosen loopback address. */
  const attempt = (session: Api, code: string, from: string) =>
    rawRequest(tc.url, 'POST', AUTH_MFA, { token: session.token, body: { code }, localAddress: from });

  async function failTimes(session: Api, n: number, from: string): Promise<void> {
    for (let i = 0; i < n; i++) expect((await attempt(session, 'ABCD-EFGH-JKMN', from)).status).toBe(400);
  }

  it('blocks an identity at the failing address after 5 failures, with a growing back-off, then lifts; elsewhere it still signs in', async () => {
    const { app, partial } = await enrolledUser();
    const session = await partial();
    clock.nextStep();
    await failTimes(session, 5, '127.0.0.3');

    let res = await attempt(session, await codeAt(app, 0), '127.0.0.3');
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(res.headers['retry-after']).toBe('60');
    schemas.assert('POST', AUTH_MFA, { status: res.status, body: res.body, headers: new Headers() });

    // past the attempt window (so the identity-wide budget is fresh), the pair's next block is twice as long
    clock.advance(6 * 60_000);
    await failTimes(session, 5, '127.0.0.3');
    res = await attempt(session, await codeAt(app, 0), '127.0.0.3');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('120');
    // the account itself is not locked: its owner elsewhere signs in
    expect((await attempt(session, await codeAt(app, 0), '127.0.0.4')).status).toBe(200);

    clock.advance(121_000);
    expect((await attempt(session, await codeAt(app, 0), '127.0.0.3')).status).toBe(200);
  });

  it('one user failing behind a shared address does not lock out the others behind it', async () => {
    const guesser = await enrolledUser();
    const colleague = await enrolledUser();
    const g = await guesser.partial();
    const c = await colleague.partial();
    clock.nextStep();
    await failTimes(g, 5, '127.0.0.6');
    expect((await attempt(g, 'ABCD-EFGH-JKMN', '127.0.0.6')).status).toBe(429);
    expect((await attempt(c, await codeAt(colleague.app, 0), '127.0.0.6')).status).toBe(200);
  });

  it('blocks a source address after 20 failures spread over several identities', async () => {
    const users = await Promise.all([1, 2, 3, 4, 5].map(() => enrolledUser()));
    const sessions = await Promise.all(users.map((u) => u.partial()));
    clock.nextStep();
    for (const session of sessions.slice(0, 4)) await failTimes(session, 5, '127.0.0.7');

    const res = await attempt(sessions[4]!, await codeAt(users[4]!.app, 0), '127.0.0.7');
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // none of them is blocked from elsewhere
    expect((await attempt(sessions[4]!, await codeAt(users[4]!.app, 0), '127.0.0.11')).status).toBe(200);
    expect((await attempt(sessions[0]!, await codeAt(users[0]!.app, 0), '127.0.0.11')).status).toBe(200);
  });

  it('guessing spread over many addresses blocks the identity everywhere for a delay, then it signs in', async () => {
    const { app, partial } = await enrolledUser();
    const session = await partial();
    clock.nextStep();
    await failTimes(session, 4, '127.0.0.12');
    await failTimes(session, 4, '127.0.0.13');
    await failTimes(session, 2, '127.0.0.14');

    // a clean address: the identity-wide budget (10) is spent, so it waits a minute like everyone
    const res = await attempt(session, await codeAt(app, 0), '127.0.0.15');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('60');
    clock.advance(61_000);
    expect((await attempt(session, await codeAt(app, 0), '127.0.0.15')).status).toBe(200);

    // how the identity-wide block is capped however often it recurs: test/unit/attempt-limits.test.ts
  });

  it('counts failures on every route that takes a code', async () => {
    const { app, partial } = await enrolledUser();
    const session = await partial();
    clock.nextStep();
    expect((await attempt(session, await codeAt(app, 0), '127.0.0.8')).status).toBe(200);
    const MFA = `${CLIENT}/current-identity/mfa`;
    const bad = { 'mfa-validation-code': '000000x' };
    for (const [method, path] of [
      ['DELETE', MFA],
      ['GET', `${MFA}/recovery-codes`],
      ['POST', `${MFA}/recovery-codes`],
      ['DELETE', MFA],
      ['GET', `${MFA}/recovery-codes`],
    ]) {
      const res = await rawRequest(tc.url, method!, path!, {
        token: session.token,
        headers: bad,
        localAddress: '127.0.0.8',
      });
      expect(res.status, `${method} ${path}`).toBe(400);
    }
    clock.nextStep();
    expect((await attempt(session, await codeAt(app, 0), '127.0.0.8')).status).toBe(429);
  });
});
