import { describe, expect, it } from 'vitest';
import { isLegacyClient, mfaCheck } from '../../../controller/posture/checks/mfa-check.js';
import type { ApiSessionPostureData, MfaCheck } from '../../../controller/posture-model.js';
import { SESSION, T0, at, checkFrom, ctx, data, session } from './fixtures.js';

function mfa(body: Record<string, unknown>): MfaCheck {
  return checkFrom('MFA', body);
}
const passedAt = (seconds: number, extra: Partial<ApiSessionPostureData> = {}) =>
  data({ apiSessions: session({ mfaPassedAt: at(seconds), ...extra }) });

describe('MFA check: parse', () => {
  it('makes every field optional with defaults', () => {
    expect(mfaCheck.parse({}, 'create')).toEqual({
      ok: true,
      spec: {
        typeId: 'MFA',
        timeoutSeconds: -1,
        promptOnWake: false,
        promptOnUnlock: false,
        ignoreLegacyEndpoints: false,
      },
    });
  });

  it('stores 0 and any negative timeout as -1', () => {
    for (const t of [0, -1, -600]) {
      const r = mfaCheck.parse({ timeoutSeconds: t }, 'create');
      expect(r.ok && r.spec.timeoutSeconds).toBe(-1);
    }
    const r = mfaCheck.parse({ timeoutSeconds: 600, ignoreLegacyEndpoints: true }, 'create');
    expect(r.ok && [r.spec.timeoutSeconds, r.spec.ignoreLegacyEndpoints]).toEqual([600, true]);
  });

  it('refuses non-integers and non-booleans by field', () => {
    const result = mfaCheck.parse(
      { timeoutSeconds: 1.5, promptOnWake: 'yes', promptOnUnlock: 1, ignoreLegacyEndpoints: {} },
      'update',
    );
    expect(result.ok || result.problems.map((p) => p.field)).toEqual([
      'timeoutSeconds',
      'promptOnWake',
      'promptOnUnlock',
      'ignoreLegacyEndpoints',
    ]);
    expect(mfaCheck.parse({ timeoutSeconds: '600' }, 'create').ok).toBe(false);
    expect(mfaCheck.parse({ timeoutSeconds: 1e300 }, 'create').ok).toBe(false);
  });

  it('patch merges over the existing check; null resets a field to its default', () => {
    const existing = {
      typeId: 'MFA' as const,
      timeoutSeconds: 600,
      promptOnWake: true,
      promptOnUnlock: false,
      ignoreLegacyEndpoints: true,
    };
    expect(mfaCheck.parse({ promptOnUnlock: true }, 'patch', existing)).toEqual({
      ok: true,
      spec: { ...existing, promptOnUnlock: true },
    });
    expect(mfaCheck.parse({ timeoutSeconds: null }, 'patch', existing)).toEqual({
      ok: true,
      spec: { ...existing, timeoutSeconds: -1 },
    });
    // update (PUT) replaces: what is left out takes its default
    expect(mfaCheck.parse({ promptOnUnlock: true }, 'update', existing)).toEqual({
      ok: true,
      spec: {
        typeId: 'MFA',
        timeoutSeconds: -1,
        promptOnWake: false,
        promptOnUnlock: true,
        ignoreLegacyEndpoints: false,
      },
    });
  });

  it('answers wire and query fields', () => {
    const check = mfa({ timeoutSeconds: 600, promptOnWake: true });
    expect(mfaCheck.toWire(check)).toEqual({
      timeoutSeconds: 600,
      promptOnWake: true,
      promptOnUnlock: false,
      ignoreLegacyEndpoints: false,
    });
    expect(mfaCheck.queryFields(check)).toEqual({ promptOnWake: true, promptOnUnlock: false });
    expect(mfaCheck.timeoutSeconds(check)).toBe(600);
  });
});

describe('MFA check: evaluate', () => {
  it('fails with the default failure values when this session never passed TOTP', () => {
    const check = mfa({});
    const other = data({
      apiSessions: { other: { ...session({ mfaPassedAt: T0 })[SESSION]!, apiSessionId: 'other' } },
    });
    for (const d of [null, data(), data({ apiSessions: session({}) }), other]) {
      const result = mfaCheck.evaluate(check, d, ctx());
      expect(result).toMatchObject({
        isPassing: false,
        actualValue: { passedMfa: false, passedOnWake: false, passedOnUnlock: false, timedOut: true },
        expectedValue: { passedMfa: true, passedOnWake: false, passedOnUnlock: false, timedOut: false },
        reason: 'no TOTP code entered in this session',
      });
    }
  });

  it('passes until the timeout has elapsed, then fails', () => {
    const check = mfa({ timeoutSeconds: 600 });
    const d = passedAt(0);
    expect(mfaCheck.evaluate(check, d, ctx(at(10))).isPassing).toBe(true);
    expect(mfaCheck.evaluate(check, d, ctx(at(600))).isPassing).toBe(true);
    const late = mfaCheck.evaluate(check, d, ctx(at(600.001)));
    expect(late).toMatchObject({ isPassing: false, actualValue: { passedMfa: true, timedOut: true } });
    expect(late.reason).toBe('the TOTP code is older than 600 seconds');
    expect(mfaCheck.evaluate(mfa({}), d, ctx(at(1e6))).isPassing).toBe(true);
  });

  it('gives a wake 5 minutes of grace: passing at 4:59, failing at 5:00', () => {
    const check = mfa({ promptOnWake: true });
    const d = passedAt(0, { wokenAt: at(60) });
    expect(mfaCheck.evaluate(check, d, ctx(at(60 + 299))).isPassing).toBe(true);
    const result = mfaCheck.evaluate(check, d, ctx(at(60 + 300)));
    expect(result).toMatchObject({
      isPassing: false,
      actualValue: { passedMfa: true, passedOnWake: false, passedOnUnlock: true, timedOut: false },
      expectedValue: { passedMfa: true, passedOnWake: true, passedOnUnlock: false, timedOut: false },
    });
    expect(result.reason).toContain('woke up');
    // a new TOTP after the wake clears it
    expect(mfaCheck.evaluate(check, passedAt(400, { wokenAt: at(60) }), ctx(at(10_000))).isPassing).toBe(
      true,
    );
    // and a check that does not prompt on wake ignores wakes
    expect(mfaCheck.evaluate(mfa({ promptOnUnlock: true }), d, ctx(at(10_000))).isPassing).toBe(true);
  });

  it('gives an unlock 5 minutes of grace: passing at 4:59, failing at 5:00', () => {
    const check = mfa({ promptOnUnlock: true, promptOnWake: true });
    const d = passedAt(0, { unlockedAt: at(100), wokenAt: at(-50) });
    expect(mfaCheck.evaluate(check, d, ctx(at(100 + 299))).isPassing).toBe(true);
    const result = mfaCheck.evaluate(check, d, ctx(at(100 + 300)));
    expect(result).toMatchObject({
      isPassing: false,
      actualValue: { passedOnWake: true, passedOnUnlock: false },
    });
    expect(result.reason).toContain('unlocked');
  });

  it('carries the criteria with ISO times and the remaining seconds', () => {
    const check = mfa({ timeoutSeconds: 600, promptOnWake: true });
    const result = mfaCheck.evaluate(check, passedAt(0, { wokenAt: at(10) }), ctx(at(30)));
    expect(result.extra).toEqual({
      criteria: {
        passedMfaAt: T0.toISOString(),
        wokenAt: at(10).toISOString(),
        unlockedAt: null,
        timeoutSeconds: 600,
        timeoutRemainingSeconds: 280,
      },
    });
  });
});

describe('MFA check: timeoutRemaining', () => {
  it('follows the OpenZiti table: the grace period only ever lowers it', () => {
    const wake = mfa({ timeoutSeconds: 600, promptOnWake: true });
    expect(mfaCheck.timeoutRemaining(wake, passedAt(-30, { wokenAt: at(-20) }), ctx())).toBe(280);
    const short = mfa({ timeoutSeconds: 100, promptOnWake: true });
    expect(mfaCheck.timeoutRemaining(short, passedAt(-30, { wokenAt: at(-10) }), ctx())).toBe(70);
    expect(mfaCheck.timeoutRemaining(wake, passedAt(-30), ctx())).toBe(570);
    expect(mfaCheck.timeoutRemaining(wake, passedAt(-30, { wokenAt: at(-40) }), ctx())).toBe(570);
    expect(mfaCheck.timeoutRemaining(wake, passedAt(-601), ctx())).toBe(0);
    expect(mfaCheck.timeoutRemaining(wake, passedAt(-30, { wokenAt: at(-25 * 60 + 1) }), ctx())).toBe(570);
  });

  it('is -1 without a timeout and 0 without a pass', () => {
    expect(
      mfaCheck.timeoutRemaining(mfa({ promptOnWake: true }), passedAt(-30, { wokenAt: at(-10) }), ctx()),
    ).toBe(-1);
    expect(mfaCheck.timeoutRemaining(mfa({ timeoutSeconds: 600 }), null, ctx())).toBe(0);
  });

  it('is -1 for a legacy client when the check ignores legacy endpoints', () => {
    const legacy = passedAt(-30, { sdkInfo: { type: 'ziti-sdk-c', version: '0.24.9' } });
    expect(
      mfaCheck.timeoutRemaining(mfa({ timeoutSeconds: 600, ignoreLegacyEndpoints: true }), legacy, ctx()),
    ).toBe(-1);
    expect(mfaCheck.timeoutRemaining(mfa({ timeoutSeconds: 600 }), legacy, ctx())).toBe(570);
  });

  it('knows which clients are legacy', () => {
    expect(isLegacyClient(null)).toBe(true);
    expect(isLegacyClient({ type: 'ziti-sdk-golang', version: '1.0.0' })).toBe(true);
    expect(isLegacyClient({ type: 'ziti-sdk-c', version: 'banana' })).toBe(true);
    expect(isLegacyClient({ type: 'ziti-sdk-c', version: '0.24.1' })).toBe(true);
    expect(isLegacyClient({ type: 'ziti-sdk-c', version: '0.25.0' })).toBe(false);
    expect(isLegacyClient({ type: 'ziti-sdk-c', version: '1.0.0' })).toBe(false);
    expect(isLegacyClient({ type: 'postern-agent', version: '0.1.0' })).toBe(false);
  });
});

describe('MFA check: nextChangeAt', () => {
  it('is the first moment the timeout fails', () => {
    const check = mfa({ timeoutSeconds: 600 });
    const d = passedAt(0);
    const next = mfaCheck.nextChangeAt(check, d, ctx(at(10)));
    expect(next).toEqual(new Date(at(600).getTime() + 1));
    expect(mfaCheck.evaluate(check, d, ctx(next!)).isPassing).toBe(false);
    expect(mfaCheck.evaluate(check, d, ctx(new Date(next!.getTime() - 1))).isPassing).toBe(true);
  });

  it('is the end of a grace period when that comes first', () => {
    const check = mfa({ timeoutSeconds: 600, promptOnWake: true, promptOnUnlock: true });
    const d = passedAt(0, { wokenAt: at(100), unlockedAt: at(200) });
    const next = mfaCheck.nextChangeAt(check, d, ctx(at(150)));
    expect(next).toEqual(at(400));
    expect(mfaCheck.evaluate(check, d, ctx(at(400))).isPassing).toBe(false);
    expect(mfaCheck.evaluate(check, d, ctx(at(399.999))).isPassing).toBe(true);
  });

  it('is null when nothing changes by itself', () => {
    expect(mfaCheck.nextChangeAt(mfa({}), passedAt(0), ctx(at(5)))).toBeNull();
    expect(mfaCheck.nextChangeAt(mfa({ timeoutSeconds: 600 }), null, ctx())).toBeNull();
    // already failing: only a new TOTP pass (an event) changes it
    expect(mfaCheck.nextChangeAt(mfa({ timeoutSeconds: 60 }), passedAt(0), ctx(at(61)))).toBeNull();
    // a wake before the pass sets no grace timer
    expect(
      mfaCheck.nextChangeAt(mfa({ promptOnWake: true }), passedAt(0, { wokenAt: at(-10) }), ctx(at(5))),
    ).toBeNull();
  });
});
