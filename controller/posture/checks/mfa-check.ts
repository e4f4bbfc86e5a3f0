/**
 * MFA check: this API session must have passed TOTP, not longer ago than `timeoutSeconds`, and, when the check
 * prompts on wake or unlock, again after the last wake/unlock once its 5-minute grace period is over. This is
 * OpenZiti's PostureCheckMfa with one difference: OpenZiti records a timeout by setting
 * a `timedOut` flag in the posture data; here evaluation is a pure function of the data and the clock, and the
 * controller re-evaluates at `nextChangeAt` instead.
 */
import semver from 'semver';
import {
  MFA_PROMPT_GRACE_SECONDS,
  NO_TIMEOUT,
  type ApiSessionPostureData,
  type CheckResult,
  type EvaluationContext,
  type FieldProblem,
  type PostureSnapshot,
  type MfaCheck,
} from '../../posture-model.js';
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import type { CheckModule } from './check-module.js';
import { kindOf, resolveField } from './normalise.js';

const GRACE_MS = MFA_PROMPT_GRACE_SECONDS * 1000;
/** Keeps passedAt + timeout a valid Date; about 68 years. */
const MAX_TIMEOUT_SECONDS = 2_147_483_647;

/** A stored value is already normalised; this guards hand-built checks (0 would otherwise time out at once). */
function timeoutOf(check: MfaCheck): number {
  return check.timeoutSeconds > 0 ? check.timeoutSeconds : NO_TIMEOUT;
}

function sessionOf(data: PostureSnapshot | null, ctx: EvaluationContext): ApiSessionPostureData | undefined {
  return data && Object.hasOwn(data.apiSessions, ctx.apiSessionId)
    ? data.apiSessions[ctx.apiSessionId]
    : undefined;
}

/**
 * OpenZiti's "legacy endpoint": a client that cannot be trusted to re-prompt for TOTP on a timeout, i.e. anything
 * but ziti-sdk-c 0.25.0 or later. Postern's own agent (sdkInfo type `postern...`) does prompt, so it is not legacy.
 */
export function isLegacyClient(sdkInfo: Record<string, string> | null): boolean {
  const type = sdkInfo?.type ?? '';
  if (type.toLowerCase().startsWith('postern')) return false;
  if (type !== 'ziti-sdk-c') return true;
  const version = semver.parse(sdkInfo?.version ?? '');
  return version === null || semver.lt(version, '0.25.0');
}

/** PassedOnWake / PassedOnUnlock: a wake or unlock at or after the last pass is forgiven for the grace period. */
function passedOnEvent(prompt: boolean, passedAt: Date | null, eventAt: Date | null, now: Date): boolean {
  if (!prompt) return true;
  if (!passedAt) return false;
  if (!eventAt || eventAt.getTime() < passedAt.getTime()) return true;
  return now.getTime() - GRACE_MS < eventAt.getTime();
}

/** Strictly later than passedAt + timeout, as in OpenZiti: at exactly the deadline the check still passes. */
function isTimedOut(check: MfaCheck, passedAt: Date, now: Date): boolean {
  const timeout = timeoutOf(check);
  return timeout !== NO_TIMEOUT && passedAt.getTime() + timeout * 1000 < now.getTime();
}

function timeoutRemaining(check: MfaCheck, data: PostureSnapshot | null, ctx: EvaluationContext): number {
  const timeout = timeoutOf(check);
  if (timeout === NO_TIMEOUT) return NO_TIMEOUT;
  const session = sessionOf(data, ctx);
  const passedAt = session?.mfaPassedAt;
  if (!session || !passedAt) return 0;
  if (check.ignoreLegacyEndpoints && isLegacyClient(session.sdkInfo)) return NO_TIMEOUT;
  const now = ctx.now.getTime();
  let remaining = timeout - Math.trunc((now - passedAt.getTime()) / 1000);
  if (remaining <= 0) return 0;
  // A wake or unlock after the pass can only shorten the time left, to what is left of its grace period.
  for (const [prompt, at] of [
    [check.promptOnWake, session.wokenAt],
    [check.promptOnUnlock, session.unlockedAt],
  ] as const) {
    if (prompt && at && at.getTime() > passedAt.getTime()) {
      const grace = Math.trunc(MFA_PROMPT_GRACE_SECONDS - (now - at.getTime()) / 1000);
      remaining = Math.min(remaining, Math.max(0, grace));
    }
  }
  return remaining;
}

function parseBoolean(value: unknown, field: string, problems: FieldProblem[]): boolean | undefined {
  if (value === null || typeof value === 'boolean') return value ?? false;
  problems.push({ field, reason: `must be true or false, got ${kindOf(value)}`, value });
  return undefined;
}

function parseTimeout(value: unknown, problems: FieldProblem[]): number | undefined {
  if (value === null) return NO_TIMEOUT;
  if (typeof value === 'number' && Number.isInteger(value) && value <= MAX_TIMEOUT_SECONDS) {
    return value > 0 ? value : NO_TIMEOUT; // 0 and every negative mean "no timeout"; one spelling is stored
  }
  const reason = `must be an integer number of seconds up to ${MAX_TIMEOUT_SECONDS}, got ${kindOf(value)}`;
  problems.push({ field: 'timeoutSeconds', reason, value });
  return undefined;
}

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

function evaluate(check: MfaCheck, data: PostureSnapshot | null, ctx: EvaluationContext): CheckResult {
  const session = sessionOf(data, ctx);
  const passedAt = session?.mfaPassedAt ?? null;
  const wokenAt = session?.wokenAt ?? null;
  const unlockedAt = session?.unlockedAt ?? null;
  const expectedValue = {
    passedMfa: true,
    passedOnWake: check.promptOnWake,
    passedOnUnlock: check.promptOnUnlock,
    timedOut: false,
  };
  const extra = {
    criteria: {
      passedMfaAt: iso(passedAt),
      wokenAt: iso(wokenAt),
      unlockedAt: iso(unlockedAt),
      timeoutSeconds: timeoutOf(check),
      timeoutRemainingSeconds: timeoutRemaining(check, data, ctx),
    },
  };
  if (!passedAt) {
    // OpenZiti's defaults for missing MFA data: nothing passed, and counted as timed out.
    const actualValue = { passedMfa: false, passedOnWake: false, passedOnUnlock: false, timedOut: true };
    return {
      isPassing: false,
      actualValue,
      expectedValue,
      extra,
      reason: 'no TOTP code entered in this session',
      failure: { code: 'MFA_REQUIRED' },
    };
  }
  const actualValue = {
    passedMfa: true,
    passedOnWake: passedOnEvent(check.promptOnWake, passedAt, wokenAt, ctx.now),
    passedOnUnlock: passedOnEvent(check.promptOnUnlock, passedAt, unlockedAt, ctx.now),
    timedOut: isTimedOut(check, passedAt, ctx.now),
  };
  const isPassing = !actualValue.timedOut && actualValue.passedOnWake && actualValue.passedOnUnlock;
  if (isPassing) {
    const grace = graceRunning(check, session!, ctx.now);
    return { isPassing, actualValue, expectedValue, extra, ...(grace ? { failure: grace } : {}) };
  }
  if (actualValue.timedOut) {
    const reason = `the TOTP code is older than ${timeoutOf(check)} seconds`;
    const failure: PostureFailureReason = { code: 'MFA_TIMED_OUT', timeoutSeconds: timeoutOf(check) };
    return { isPassing, actualValue, expectedValue, extra, reason, failure };
  }
  const woke = !actualValue.passedOnWake;
  const reason = `the device ${woke ? 'woke up' : 'was unlocked'} more than 5 minutes ago and no TOTP code has been entered since`;
  const failure: PostureFailureReason = {
    code: woke ? 'MFA_NEEDED_AFTER_WAKE' : 'MFA_NEEDED_AFTER_UNLOCK',
    secondsLeft: 0,
  };
  return { isPassing, actualValue, expectedValue, extra, reason, failure };
}

/**
 * A wake or unlock since the last code that the check prompts on and whose grace period still runs: the check
 * passes, but the user has this long to enter a code. The earlier deadline wins when both run.
 */
function graceRunning(
  check: MfaCheck,
  session: ApiSessionPostureData,
  now: Date,
): PostureFailureReason | null {
  const passedAt = session.mfaPassedAt?.getTime() ?? 0;
  const running = (
    [
      ['MFA_NEEDED_AFTER_WAKE', check.promptOnWake, session.wokenAt],
      ['MFA_NEEDED_AFTER_UNLOCK', check.promptOnUnlock, session.unlockedAt],
    ] as const
  )
    .filter(([, prompt, at]) => prompt && at && at.getTime() >= passedAt)
    .map(([code, , at]) => ({
      code,
      secondsLeft: Math.ceil((at!.getTime() + GRACE_MS - now.getTime()) / 1000),
    }))
    .filter((g) => g.secondsLeft > 0)
    .sort((a, b) => a.secondsLeft - b.secondsLeft);
  return running[0] ?? null;
}

export const mfaCheck: CheckModule<MfaCheck> = {
  typeId: 'MFA',
  reads: { kinds: [], apiSessions: true },

  parse(body, mode, existing) {
    const problems: FieldProblem[] = [];
    // Every field is optional: left out of a create/update it takes its default, left out of a patch it is kept;
    // null resets it to the default, as a JSON null does in an OpenZiti patch.
    const read = <K extends 'timeoutSeconds' | 'promptOnWake' | 'promptOnUnlock' | 'ignoreLegacyEndpoints'>(
      key: K,
      fallback: MfaCheck[K],
      parse: (v: unknown) => MfaCheck[K] | undefined,
    ): MfaCheck[K] | undefined => {
      const field = resolveField(body, [key], mode, existing !== undefined);
      if (field.kind === 'keep') return existing?.[key] ?? fallback;
      return field.kind === 'missing' ? fallback : parse(field.value);
    };
    const timeoutSeconds = read('timeoutSeconds', NO_TIMEOUT, (v) => parseTimeout(v, problems));
    const promptOnWake = read('promptOnWake', false, (v) => parseBoolean(v, 'promptOnWake', problems));
    const promptOnUnlock = read('promptOnUnlock', false, (v) => parseBoolean(v, 'promptOnUnlock', problems));
    const ignoreLegacy = read('ignoreLegacyEndpoints', false, (v) =>
      parseBoolean(v, 'ignoreLegacyEndpoints', problems),
    );
    if (
      problems.length > 0 ||
      timeoutSeconds === undefined ||
      promptOnWake === undefined ||
      promptOnUnlock === undefined ||
      ignoreLegacy === undefined
    ) {
      return { ok: false, problems };
    }
    return {
      ok: true,
      spec: {
        typeId: 'MFA',
        timeoutSeconds,
        promptOnWake,
        promptOnUnlock,
        ignoreLegacyEndpoints: ignoreLegacy,
      },
    };
  },

  toWire(check) {
    const { promptOnWake, promptOnUnlock, ignoreLegacyEndpoints } = check;
    return { timeoutSeconds: timeoutOf(check), promptOnWake, promptOnUnlock, ignoreLegacyEndpoints };
  },

  evaluate,
  timeoutSeconds: timeoutOf,
  timeoutRemaining,

  queryFields(check) {
    return { promptOnWake: check.promptOnWake, promptOnUnlock: check.promptOnUnlock };
  },

  nextChangeAt(check, data, ctx) {
    // Only a passing check changes by itself; a failing one waits for a new TOTP pass, which is an event.
    if (!evaluate(check, data, ctx).isPassing) return null;
    const session = sessionOf(data, ctx);
    const passedAt = session?.mfaPassedAt;
    if (!session || !passedAt) return null;
    const moments: number[] = [];
    const timeout = timeoutOf(check);
    // The first millisecond at which passedAt + timeout < now holds.
    if (timeout !== NO_TIMEOUT) moments.push(passedAt.getTime() + timeout * 1000 + 1);
    for (const [prompt, at] of [
      [check.promptOnWake, session.wokenAt],
      [check.promptOnUnlock, session.unlockedAt],
    ] as const) {
      // The grace ends exactly GRACE_MS after the event: at T+5:00 the check fails, at T+4:59.999 it passes.
      if (prompt && at && at.getTime() >= passedAt.getTime()) moments.push(at.getTime() + GRACE_MS);
    }
    const next = Math.min(...moments.filter((m) => m > ctx.now.getTime()));
    return Number.isFinite(next) ? new Date(next) : null;
  },
};
