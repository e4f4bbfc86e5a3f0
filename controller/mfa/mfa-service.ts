import { randomBytes, randomUUID } from 'node:crypto';
import { endApiSessionsOf } from '../auth/api-sessions.js';
import type { ControllerContext } from '../platform/context.js';
import type { ApiSession, Identity } from '../model.js';
import { ApiError, notFound, rateLimited } from '../api-error.js';
import type {
  MfaAuditEvent,
  MfaAuditEventType,
  MfaEnrollment,
  MfaFactor,
  SealedRecoveryCode,
} from '../store/mfa-repository.js';
import type { SecretBox } from './secret-box.js';
import { CodeVerifier, type CodeCheck } from './code-verifier.js';
import { formatRecoveryCode, generateRecoveryCodes } from './recovery-codes.js';
import { provisioningUrl, qrCodePng } from './provisioning.js';
import { recordAudit } from '../audit/audit-trail.js';
import { mfaTrailRecords } from '../audit/mfa-events.js';
import type { Actor as TrailActor } from '../audit/audit-model.js';

/** 160 bits, the HMAC-SHA1 block's worth (RFC 4226 §4 recommends at least this). */
const SECRET_BYTES = 20;

export const mfaInvalidToken = () =>
  new ApiError(400, 'MFA_INVALID_TOKEN', 'The MFA code is missing, invalid or already used');
/** The same status and code as a wrong code (clients branch on them), with words that say what happened. */
const mfaCodeUsed = (message: string) => new ApiError(400, 'MFA_INVALID_TOKEN', message);
const mfaExists = () =>
  new ApiError(409, 'MFA_EXISTS', 'An MFA enrollment already exists; remove it before enrolling again');
const mfaNotEnrolled = () =>
  new ApiError(409, 'MFA_NOT_ENROLLED', 'The identity has no verified MFA enrollment');
const noEnrollment = (state = 'no MFA enrollment') => notFound(state);
const startedElsewhere = () =>
  new ApiError(
    409,
    'MFA_ENROLLMENT_IN_OTHER_SESSION',
    'This MFA enrollment was started in another session; finish it there, or remove it and enroll again here',
  );
/** An enrollment from before sessions were recorded belongs to whoever asks. */
const startedIn = (enrollment: MfaEnrollment, sessionId: string | undefined) =>
  enrollment.startedBy === null || enrollment.startedBy === sessionId;

/** Who is acting: the caller's API session and identity, and the address the request came from. */
export interface Actor {
  session: ApiSession;
  identity: Identity;
  sourceIp: string;
}

/** An enrollment as the API shows it; the secret (inside the URL) and the codes only while unverified. */
export interface MfaStatus {
  enrollment: MfaEnrollment;
  recoveryCodesRemaining: number;
  recoveryCodes?: string[];
  provisioningUrl?: string;
}

/**
 * A refused code, thrown out of the transaction that judged it (rolling back nothing it wrote: a refusal writes
 * nothing) so the failure is audited after it, where no rollback can undo the record.
 */
class CodeRefused extends Error {
  constructor(readonly outcome: Extract<CodeCheck, { ok: false }>) {
    super(outcome.reason);
  }
}

/**
 * The MFA TOTP life cycle of an identity (not enrolled → enrolled but unverified → verified → removed) and the
 * second factor of a login (a partial API session until `POST /authenticate/mfa`).
 *
 * Each operation reads the enrollment, judges the code and writes what follows in one store transaction, so
 * no other request changes the enrollment in between (a removal and a new enrollment cannot slip between the
 * judging of a code and the step it stores). The work done inside is quick (HMACs, AES); nothing slow waits
 * there.
 */
export class MfaService {
  private readonly verifier: CodeVerifier;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly box: SecretBox,
  ) {
    this.verifier = new CodeVerifier(ctx, box);
  }

  /**
   * The identity's enrollment as `sessionId` may see it: the secret and codes of an unfinished one only
   * for the session that started it (others learn that one is pending, and may abandon it).
   */
  status(identity: Identity, sessionId: string | undefined): Promise<MfaStatus> {
    // One transaction: the codes shown are those of the enrollment shown, even with a re-enrollment racing.
    return this.ctx.store.transaction(() => this.statusNow(identity, sessionId));
  }

  async enroll(actor: Actor): Promise<MfaStatus> {
    const { identity } = actor;
    const now = this.ctx.clock.now();
    const secret = randomBytes(SECRET_BYTES);
    const enrollment: MfaEnrollment = {
      id: randomUUID(),
      identityId: identity.id,
      isVerified: false,
      sealedSecret: this.box.seal(secret, identity.id, 'totp-secret'),
      lastStep: null,
      createdAt: now,
      updatedAt: now,
      verifiedAt: null,
      startedBy: actor.session.id,
    };
    const codes = this.sealCodes(identity.id, generateRecoveryCodes());
    return this.ctx.store.transaction(async () => {
      if (!(await this.ctx.store.mfa.create(enrollment, codes))) throw mfaExists();
      await this.audit(actor, 'enroll', 'success');
      this.ctx.events.emit('mfa.changed', identity.id);
      return this.statusNow(identity, actor.session.id);
    });
  }

  /** Completes enrollment with a TOTP code; the calling session counts as having passed MFA. */
  async verify(actor: Actor, code: string): Promise<void> {
    await this.withCode(actor, 'verify', async () => {
      const enrollment = await this.ctx.store.mfa.get(actor.identity.id);
      if (!enrollment || enrollment.isVerified) throw noEnrollment('no MFA enrollment awaiting verification');
      if (!startedIn(enrollment, actor.session.id)) throw startedElsewhere();
      await this.requireCode(actor, enrollment, code, 'verify', {
        allowRecoveryCode: false,
        verifying: true,
      });
      await this.passMfa(actor.session, true);
      this.ctx.events.emit('mfa.changed', actor.identity.id);
      // Sessions opened before MFA was on never proved a second factor: they end.
      await endApiSessionsOf(this.ctx, actor.identity.id, { cause: 'mfa-enrolled' }, actor.session.id);
    });
  }

  /** The second factor of a login (POST /authenticate/mfa), or passing it again for posture checks. */
  async authenticate(actor: Actor, code: string): Promise<void> {
    await this.withCode(actor, 'authenticate', async () => {
      const enrollment = await this.ctx.store.mfa.get(actor.identity.id);
      if (!enrollment?.isVerified) throw mfaNotEnrolled();
      await this.requireCode(actor, enrollment, code, 'authenticate', {
        allowRecoveryCode: true,
        verifying: false,
      });
      await this.passMfa(actor.session, false);
    });
  }

  /** The user's own removal: free for an unfinished enrollment, a valid code for a verified one. */
  async remove(actor: Actor, code: string | undefined): Promise<void> {
    await this.withCode(actor, 'remove', async () => {
      const enrollment = (await this.ctx.store.mfa.get(actor.identity.id)) ?? throwError(noEnrollment());
      if (enrollment.isVerified) {
        await this.requireCode(actor, enrollment, code, 'remove', {
          allowRecoveryCode: true,
          verifying: false,
        });
      }
      if (!(await this.ctx.store.mfa.delete(actor.identity.id))) return;
      this.ctx.events.emit('mfa.changed', actor.identity.id);
      if (!enrollment.isVerified)
        await this.audit(actor, 'remove', 'success', { reason: 'unverified-abandoned' });
      else await endApiSessionsOf(this.ctx, actor.identity.id, { cause: 'mfa-removed' }, actor.session.id);
      this.ctx.events.emit('mfa.removed', actor.identity.id);
    });
  }

  /** An administrator's reset, at any time and without a code; 404 only for an unknown identity. */
  async adminRemove(admin: Actor, identityId: string): Promise<void> {
    // In a transaction: the sessions' ends and the event's listeners are done before the answer.
    await this.ctx.store.transaction(async () => {
      if (!(await this.ctx.store.identities.get(identityId))) throw notFound(`identities/${identityId}`);
      const removed = await this.ctx.store.mfa.delete(identityId);
      await this.audit(admin, 'admin-remove', 'success', {
        identityId,
        actorIdentityId: admin.identity.id,
        reason: removed ? null : 'nothing-enrolled',
      });
      if (!removed) return;
      this.ctx.events.emit('mfa.changed', identityId);
      // The account may be in someone else's hands (the usual reason for a reset): every session ends.
      await endApiSessionsOf(
        this.ctx,
        identityId,
        { cause: 'mfa-removed' },
        admin.identity.id === identityId ? admin.session.id : undefined,
      );
      this.ctx.events.emit('mfa.removed', identityId);
    });
  }

  async readRecoveryCodes(
    actor: Actor,
    code: string | undefined,
  ): Promise<{ enrollment: MfaEnrollment; codes: string[] }> {
    return this.withCode(actor, 'recovery-codes.read', async () => {
      const enrollment = await this.verifiedEnrollment(actor.identity.id);
      // A TOTP or a recovery code, as the interface specifies (the recovery code is used up by it).
      await this.requireCode(actor, enrollment, code, 'recovery-codes.read', {
        allowRecoveryCode: true,
        verifying: false,
      });
      return { enrollment, codes: await this.openCodes(actor.identity.id) };
    });
  }

  /** Replaces the whole set: codes written down before stop working at once. */
  async regenerateRecoveryCodes(
    actor: Actor,
    code: string | undefined,
  ): Promise<{ enrollment: MfaEnrollment; codes: string[] }> {
    const fresh = generateRecoveryCodes();
    const sealed = this.sealCodes(actor.identity.id, fresh);
    return this.withCode(actor, 'recovery-codes.regenerate', async () => {
      const enrollment = await this.verifiedEnrollment(actor.identity.id);
      // A TOTP or a recovery code, as the interface specifies (the recovery code is used up by it).
      await this.requireCode(actor, enrollment, code, 'recovery-codes.regenerate', {
        allowRecoveryCode: true,
        verifying: false,
      });
      await this.ctx.store.mfa.replaceRecoveryCodes(actor.identity.id, sealed);
      return { enrollment, codes: fresh.map(formatRecoveryCode) };
    });
  }

  /** The provisioning URL as a QR code, only while the enrollment awaits verification. */
  async qrCode(identity: Identity, sessionId: string): Promise<Buffer> {
    const enrollment = await this.ctx.store.mfa.get(identity.id);
    if (!enrollment || enrollment.isVerified) throw noEnrollment('no MFA enrollment awaiting verification');
    if (!startedIn(enrollment, sessionId)) throw startedElsewhere();
    return qrCodePng(this.urlOf(identity, enrollment));
  }

  /** The identity is gone: so are its secret and codes (its audit trail stays). */
  async purge(identityId: string): Promise<void> {
    await this.ctx.store.transaction(async () => {
      if (!(await this.ctx.store.mfa.delete(identityId))) return;
      await this.record({
        eventType: 'identity-deleted',
        identityId,
        apiSessionId: null,
        sourceIp: null,
        outcome: 'success',
        factor: null,
        reason: null,
      });
    });
  }

  /** `status` inside the caller's transaction. */
  private async statusNow(identity: Identity, sessionId: string | undefined): Promise<MfaStatus> {
    const enrollment = (await this.ctx.store.mfa.get(identity.id)) ?? throwError(noEnrollment());
    const recoveryCodesRemaining = await this.ctx.store.mfa.countRecoveryCodes(identity.id);
    if (enrollment.isVerified || !startedIn(enrollment, sessionId))
      return { enrollment, recoveryCodesRemaining };
    return {
      enrollment,
      recoveryCodesRemaining,
      recoveryCodes: await this.openCodes(identity.id),
      provisioningUrl: this.urlOf(identity, enrollment),
    };
  }

  private async verifiedEnrollment(identityId: string): Promise<MfaEnrollment> {
    const enrollment = await this.ctx.store.mfa.get(identityId);
    if (!enrollment?.isVerified) throw noEnrollment('no verified MFA enrollment');
    return enrollment;
  }

  /**
   * Runs `work` (which reads the enrollment and calls `requireCode`) in one transaction. A refused code
   * leaves it by CodeRefused: the failure is audited after the rollback, then answered 429 or 400 (the same
   * 400 for every wrong code). Called outside any transaction (a route's), so the failure record is kept.
   */
  private async withCode<T>(actor: Actor, eventType: MfaAuditEventType, work: () => Promise<T>): Promise<T> {
    try {
      return await this.ctx.store.transaction(work);
    } catch (err) {
      if (!(err instanceof CodeRefused)) throw err;
      const { outcome } = err;
      await this.audit(actor, eventType, 'failure', { reason: outcome.reason });
      if (outcome.reason === 'rate-limited') throw rateLimited(outcome.retryAfterMs / 1000);
      if (outcome.reason === 'replayed-code')
        throw mfaCodeUsed('That code was already used; wait for the next one');
      if (outcome.reason === 'used-recovery-code')
        throw mfaCodeUsed('That recovery code was already used; each works once, use another one');
      throw mfaInvalidToken();
    }
  }

  /** Judges the code inside `withCode`'s transaction: audits a success there, throws CodeRefused otherwise. */
  private async requireCode(
    actor: Actor,
    enrollment: MfaEnrollment,
    code: string | undefined,
    eventType: MfaAuditEventType,
    options: { allowRecoveryCode: boolean; verifying: boolean },
  ): Promise<MfaFactor> {
    const outcome = await this.verifier.check({ enrollment, code, sourceIp: actor.sourceIp, ...options });
    if (!outcome.ok) throw new CodeRefused(outcome);
    await this.audit(actor, eventType, 'success', { factor: outcome.factor });
    return outcome.factor;
  }

  private async passMfa(session: ApiSession, verifying: boolean): Promise<void> {
    session.isMfaComplete = true;
    // Verifying proves a TOTP on this session just as a login with MFA would (OpenZiti sets both flags).
    if (verifying) session.isMfaRequired = true;
    session.updatedAt = this.ctx.clock.now();
    await this.ctx.store.apiSessions.update(session);
    this.ctx.events.emit('mfa.passed', session.id, session.identityId);
  }

  private urlOf(identity: Identity, enrollment: MfaEnrollment): string {
    const secret = this.box.open(enrollment.sealedSecret, identity.id, 'totp-secret');
    return provisioningUrl(this.ctx.config.totpIssuer, identity.name, secret);
  }

  private sealCodes(identityId: string, codes: readonly string[]): SealedRecoveryCode[] {
    return codes.map((code) => ({
      id: randomUUID(),
      sealed: this.box.sealText(code, identityId, 'recovery-code'),
    }));
  }

  private async openCodes(identityId: string): Promise<string[]> {
    return (await this.ctx.store.mfa.recoveryCodes(identityId)).map((c) =>
      formatRecoveryCode(this.box.openText(c.sealed, identityId, 'recovery-code')),
    );
  }

  private audit(
    actor: Actor,
    eventType: MfaAuditEventType,
    outcome: MfaAuditEvent['outcome'],
    extra: Partial<Pick<MfaAuditEvent, 'identityId' | 'actorIdentityId' | 'factor' | 'reason'>> = {},
  ): Promise<void> {
    return this.record(
      {
        eventType,
        identityId: actor.identity.id,
        apiSessionId: actor.session.id,
        sourceIp: actor.sourceIp,
        outcome,
        factor: null,
        reason: null,
        ...extra,
      },
      { id: actor.identity.id, name: actor.identity.name },
    );
  }

  /**
   * The MFA log's record and its events on the audit trail (audit/mfa-events.ts), in one transaction: the
   * caller's when there is one (the change they record), else their own (a refused code, after its rollback).
   */
  private record(
    event: Omit<MfaAuditEvent, 'id' | 'at' | 'actorIdentityId'> & { actorIdentityId?: string | null },
    actor: TrailActor | null = null,
  ): Promise<void> {
    const at = this.ctx.clock.now();
    const full: MfaAuditEvent = { actorIdentityId: null, ...event, id: randomUUID(), at };
    return this.ctx.store.transaction(async () => {
      await this.ctx.store.mfa.recordAudit(full);
      for (const record of mfaTrailRecords(full, actor)) await recordAudit(this.ctx, record, at);
    });
  }
}

function throwError(error: Error): never {
  throw error;
}
