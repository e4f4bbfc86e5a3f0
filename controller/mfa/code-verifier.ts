import type { ControllerContext } from '../platform/context.js';
import { AttemptLimits } from '../platform/limits/attempt-limits.js';
import type { MfaEnrollment, MfaFactor } from '../store/mfa-repository.js';
import type { SecretBox } from './secret-box.js';
import { looksLikeTotp, matchTotp } from './totp.js';
import { findRecoveryCode, normalizeRecoveryCode } from './recovery-codes.js';

/**
 * The one place a user's TOTP or recovery code is judged, for every route that asks for one. It applies,
 * in order: the per-identity and per-address attempt limits, the TOTP check with its replay guard, and
 * the single-use recovery codes. Callers turn the outcome into a reply and an audit record.
 *
 * Call it inside the store transaction that read the enrollment (MfaService does): the compare-and-set of the
 * step, or the use of a recovery code, then lands on the very enrollment that was judged, and of two requests
 * racing with one code only one passes. The attempt limits are not part of that transaction: a refused code
 * rolls it back, and its failure must count all the same (in memory, or on the PostgreSQL limiter's own
 * connections).
 */
export type CodeCheck =
  | { ok: true; factor: MfaFactor }
  | { ok: false; reason: 'rate-limited'; retryAfterMs: number }
  | { ok: false; reason: 'invalid-code' | 'replayed-code' | 'used-recovery-code' };

export interface CodeAttempt {
  enrollment: MfaEnrollment;
  code: string | undefined;
  /** enrollment verification takes TOTP only: it proves the app was set up */
  allowRecoveryCode: boolean;
  /** when true an accepted TOTP also marks the enrollment verified, in the same atomic update */
  verifying: boolean;
  sourceIp: string;
}

/**
 * Within 5 minutes: 5 failures for one identity from one address block that pair, 20 from one address
 * (over every identity) block the address, both for 1 minute doubling up to an hour; 10 for one identity
 * over every address block the identity everywhere for 1 minute doubling up to 15 minutes, never longer.
 * At ±1 step a guess wins with odds 3 in a million, so this leaves an attacker a few thousand guesses a
 * day against one account even from many addresses.
 */
const window = { windowMs: 5 * 60_000, baseBlockMs: 60_000 };
export const MFA_LIMITS = {
  perPair: { ...window, maxFailures: 5, maxBlockMs: 60 * 60_000 },
  perAddress: { ...window, maxFailures: 20, maxBlockMs: 60 * 60_000 },
  perAccount: { ...window, maxFailures: 10, maxBlockMs: 15 * 60_000 },
};

export class CodeVerifier {
  private readonly limits: AttemptLimits;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly box: SecretBox,
  ) {
    // Read the clock through ctx on every call: tests (and nothing else) swap ctx.clock. The limits are kept
    // where the context keeps them: shared by every controller on a PostgreSQL database.
    this.limits = new AttemptLimits(MFA_LIMITS, () => ctx.clock.now().getTime(), ctx.limiters, 'mfa');
  }

  async check(attempt: CodeAttempt): Promise<CodeCheck> {
    const held = await this.limits.reserve(attempt.enrollment.identityId, attempt.sourceIp);
    if ('retryAfterMs' in held) return { ok: false, reason: 'rate-limited', retryAfterMs: held.retryAfterMs };
    let outcome: CodeCheck | undefined;
    try {
      outcome = await this.judge(attempt);
      return outcome;
    } finally {
      await this.limits.settle(
        held.ticket,
        outcome === undefined ? 'not-tried' : outcome.ok ? 'passed' : 'failed',
      );
    }
  }

  private async judge({ enrollment, code, allowRecoveryCode, verifying }: CodeAttempt): Promise<CodeCheck> {
    const given = (code ?? '').replace(/\s/g, '');
    if (looksLikeTotp(given)) return this.judgeTotp(enrollment, given, verifying);
    const recovery = allowRecoveryCode ? normalizeRecoveryCode(given) : undefined;
    if (recovery === undefined) return { ok: false, reason: 'invalid-code' };
    const used = await this.useRecoveryCode(enrollment.identityId, recovery);
    if (used === 'used') return { ok: true, factor: 'recovery-code' };
    return { ok: false, reason: used === 'already-used' ? 'used-recovery-code' : 'invalid-code' };
  }

  private async judgeTotp(enrollment: MfaEnrollment, code: string, verifying: boolean): Promise<CodeCheck> {
    const now = this.ctx.clock.now();
    const secret = this.box.open(enrollment.sealedSecret, enrollment.identityId, 'totp-secret');
    const match = matchTotp(secret, code, now, enrollment.lastStep);
    secret.fill(0);
    if (match.result !== 'match')
      return { ok: false, reason: match.result === 'replayed' ? 'replayed-code' : 'invalid-code' };
    // Compare-and-set in the store: of two requests racing with one code (or with two codes where the
    // older arrives last) only the first to store its step wins. It lands only on the enrollment judged: one
    // removed and started again meanwhile (another controller) is another, which the old secret's code
    // neither verifies nor advances.
    const mfa = this.ctx.store.mfa;
    const stored = verifying
      ? await mfa.markVerified(enrollment, match.step, now)
      : await mfa.advanceStep(enrollment, match.step, now);
    return stored ? { ok: true, factor: 'totp' } : { ok: false, reason: 'replayed-code' };
  }

  /** Finds the code among the identity's (used ones too), in constant time; only the call that marks it used wins. */
  private async useRecoveryCode(
    identityId: string,
    candidate: string,
  ): Promise<'used' | 'already-used' | 'unknown'> {
    const stored = (await this.ctx.store.mfa.recoveryCodes(identityId, true)).map((c) => ({
      id: c.id,
      used: c.used === true,
      code: this.box.openText(c.sealed, identityId, 'recovery-code'),
    }));
    const id = findRecoveryCode(candidate, stored);
    if (id === undefined) return 'unknown';
    if (stored.find((c) => c.id === id)!.used) return 'already-used';
    return (await this.ctx.store.mfa.consumeRecoveryCode(identityId, id)) ? 'used' : 'already-used';
  }
}
