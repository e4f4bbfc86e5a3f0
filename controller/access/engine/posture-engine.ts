/**
 * Event-based posture evaluation. Whatever can change an identity's access (a posture response, an MFA
 * pass or removal, a change to the identity, its policies, checks or services, or a timer reaching an MFA
 * timeout or grace end) ends in `evaluateIdentity`, which for that identity only:
 * - revokes the edge sessions whose access no longer holds,
 * - moves `lastChangeAt` when what any of its API sessions can reach has changed,
 * - re-arms each API session's expiry timer for the next moment a check changes by itself, and stores that
 *   moment as a deadline another instance sharing the database enforces if this one stops
 *   (persisted-deadlines.ts, deadline-takeover.ts).
 */
import { isDisabledNow } from '../../identity-disabled.js';
import { createHash } from 'node:crypto';
import type { ControllerContext } from '../../platform/context.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import { serializeAccessOf } from '../../store/access-lock.js';
import { SessionEvaluation, type CheckOutcome, type PolicyOutcome } from '../decisions/session-evaluation.js';
import type { PostureSnapshot } from '../../posture-model.js';
import type { Identity } from '../../model.js';
import { ExpiryTimers } from './expiry-timers.js';
import { deleteCheckStatesOf, recordCheckStates } from './check-state-recorder.js';
import { PersistedDeadlines } from './persisted-deadlines.js';
import { recordAccessTransitions } from '../../audit/access-transitions.js';

export interface EvaluateOptions {
  /** reuse a resolver across identities within one pass (the catalogue does not change under it) */
  resolver?: AccessResolver;
  /** move lastChangeAt even if the digest is unchanged (a service or policy changed in ways it cannot see) */
  forceChange?: boolean;
}

/** A check's result as its device sees it: passing, failing, or passing only by a warning or an exception. */
const shownResult = ({ isPassing, notEnforced }: CheckOutcome['result']) =>
  !isPassing ? '0' : notEnforced && notEnforced.because !== 'report-only' ? notEnforced.because : '1';

/**
 * What an API session can reach, reduced to a short string: policy and check results in a stable order. A
 * check starting to warn, or passing by an exception, changes it too: the device's posture queries say so.
 */
function digestOf(outcomes: readonly PolicyOutcome[]): string {
  const parts = outcomes.map(
    (o) =>
      `${o.policy.id}:${o.policy.type}:${o.isPassing ? 1 : 0}:` +
      o.checks.map((c) => `${c.check.id}=${shownResult(c.result)}`).join(','),
  );
  return createHash('sha1').update(parts.join('|')).digest('base64url');
}

export class PostureEngine {
  readonly timers: ExpiryTimers;
  private readonly deadlines: PersistedDeadlines;

  constructor(private readonly ctx: ControllerContext) {
    this.deadlines = new PersistedDeadlines(ctx);
    this.timers = new ExpiryTimers(ctx.clock, (apiSessionIds) => {
      this.onExpiry(apiSessionIds).catch((err: unknown) =>
        ctx.log.error({ err }, 'posture re-evaluation at expiry failed'),
      );
    });
  }

  /** An evaluation of one API session of the identity now; `data` defaults to what is stored. */
  async evaluation(
    resolver: AccessResolver,
    identity: Identity,
    apiSessionId: string,
    data?: PostureSnapshot,
  ): Promise<SessionEvaluation> {
    const stored = data ?? (await this.ctx.store.posture.data.load(identity.id));
    return new SessionEvaluation(resolver, stored, apiSessionId, this.ctx.clock.now(), identity);
  }

  /** One transaction, so an evaluation's writes (digests, revocations, the change mark) cost one commit. */
  async evaluateIdentity(identityId: string, options: EvaluateOptions = {}): Promise<void> {
    await this.evaluateWithData(identityId, options);
  }

  /**
   * `evaluateIdentity`, answering the posture data the evaluation decided on (read under the identity's access
   * lock), so a caller in the same transaction needs no read of its own; undefined when the identity no longer
   * exists.
   */
  evaluateWithData(identityId: string, options: EvaluateOptions = {}): Promise<PostureSnapshot | undefined> {
    return this.ctx.store.transaction(() => this.evaluate(identityId, options));
  }

  private async evaluate(identityId: string, options: EvaluateOptions): Promise<PostureSnapshot | undefined> {
    const { store, clock } = this.ctx;
    // One at a time with the identity's session requests (access-lock.ts): a session decided before this
    // commits is found here, one decided after sees what this changed.
    await serializeAccessOf(store, identityId);
    const identity = await store.identities.get(identityId);
    if (!identity) {
      await this.forgetIdentity(identityId);
      return undefined;
    }
    const resolver = options.resolver ?? (await AccessResolver.of(store));
    const now = clock.now();
    const data = await store.posture.data.load(identityId);
    const sessions = await store.posture.sessions.listByIdentity(identityId);
    const evaluations = new Map<string, SessionEvaluation>();
    const evaluationOf = (apiSessionId: string) => {
      let evaluation = evaluations.get(apiSessionId);
      if (!evaluation) {
        evaluation = new SessionEvaluation(resolver, data, apiSessionId, now, identity);
        evaluations.set(apiSessionId, evaluation);
      }
      return evaluation;
    };

    let changed = options.forceChange === true;
    const policies = resolver.policiesOf(identity);
    for (const apiSessionId of Object.keys(data.apiSessions)) {
      const evaluation = evaluationOf(apiSessionId);
      const digest = digestOf(policies.map((p) => evaluation.policy(p)));
      const previous = await store.posture.data.accessDigest(apiSessionId);
      if (previous !== digest) {
        await store.posture.data.setAccessDigest(apiSessionId, digest);
        // The first digest of a new API session is its starting point, not a change it could have missed.
        if (previous !== null) changed = true;
      }
      const nextChangeAt = evaluation.nextChangeAt();
      this.timers.set(apiSessionId, nextChangeAt);
      await this.deadlines.record(apiSessionId, nextChangeAt);
    }

    // Recorded for the administrator, from the same evaluations; with no API session, as for a new sign-in.
    const checks = [...new Set(policies.flatMap((p) => resolver.checksOf(p)))];
    const sessionIds = Object.keys(data.apiSessions);
    const recorded = (sessionIds.length ? sessionIds : ['']).map(evaluationOf);
    await recordCheckStates(store, identityId, checks, recorded, now);

    const lost = sessions.filter((s) => {
      const service = resolver.service(s.serviceId);
      return (
        isDisabledNow(identity, this.ctx.clock.now()) ||
        !service ||
        // An edge session whose API session is gone is an orphan: it never outlives its API session.
        !(s.apiSessionId in data.apiSessions) ||
        !evaluationOf(s.apiSessionId).access(identity, service, s.type).granted
      );
    });
    if (lost.length > 0) {
      const revoked = await store.posture.sessions.deleteMany(lost.map((s) => s.id));
      this.ctx.log.info(
        { identityId, sessionIds: revoked },
        'sessions revoked: posture or policy no longer grants access',
      );
      changed = true;
    }
    if (changed) {
      // Only when what the identity can reach moved: a repeated report reads and writes nothing more.
      await recordAccessTransitions(this.ctx, resolver, identity, sessionIds.map(evaluationOf), now);
      await this.markChanged(identityId);
    }
    return data;
  }

  /** Moves lastChangeAt, strictly forward even within one millisecond, so a client polling it sees every change. */
  async markChanged(identityId: string): Promise<void> {
    const now = this.ctx.clock.now().getTime();
    const previous = (await this.ctx.store.posture.changes.lastChangeAt(identityId))?.getTime() ?? 0;
    await this.ctx.store.posture.changes.markChanged(identityId, new Date(Math.max(now, previous + 1)));
  }

  async forgetApiSession(apiSessionId: string): Promise<void> {
    this.timers.delete(apiSessionId);
    await this.ctx.store.transaction(async () => {
      await this.ctx.store.posture.sessions.deleteByApiSession(apiSessionId);
      await this.ctx.store.posture.data.deleteApiSession(apiSessionId);
      await this.deadlines.forget(apiSessionId);
    });
  }

  async forgetIdentity(identityId: string): Promise<void> {
    const { posture } = this.ctx.store;
    const apiSessionIds = Object.keys((await posture.data.load(identityId)).apiSessions);
    for (const apiSessionId of apiSessionIds) this.timers.delete(apiSessionId);
    await this.ctx.store.transaction(async () => {
      for (const apiSessionId of apiSessionIds) await this.deadlines.forget(apiSessionId);
      await posture.data.deleteIdentity(identityId);
      await posture.sessions.deleteByIdentity(identityId);
      await posture.failures.deleteByIdentity(identityId);
      await posture.changes.deleteByIdentity(identityId);
      await deleteCheckStatesOf(this.ctx.store, identityId);
    });
  }

  close(): void {
    this.timers.close();
    this.deadlines.close();
  }

  /**
   * Deadlines of these API sessions that this instance claimed from one that did not fire them (it stopped):
   * their identities are evaluated here, which revokes what expired and re-arms, here, what remains.
   */
  takeOver(apiSessionIds: readonly string[]): Promise<void> {
    for (const id of apiSessionIds) this.deadlines.claimed(id);
    return this.onExpiry(apiSessionIds);
  }

  private async onExpiry(apiSessionIds: readonly string[]): Promise<void> {
    const identities = new Set<string>();
    for (const id of apiSessionIds) {
      const identityId = await this.ctx.store.posture.data.identityOfApiSession(id);
      if (identityId) identities.add(identityId);
      // The API session ended (its identity's evaluation would no longer see it): its deadline goes too.
      else await this.deadlines.forget(id);
    }
    const resolver = await AccessResolver.of(this.ctx.store);
    for (const identityId of identities) {
      try {
        await this.evaluateIdentity(identityId, { resolver });
      } catch (err) {
        this.ctx.log.error({ err, identityId }, 'posture re-evaluation at expiry failed');
      }
    }
  }
}
