/**
 * The access decision for one API session at one instant: a policy passes when all its posture checks pass,
 * and a service is granted for a session type when any policy of that type selecting the identity and the
 * service passes (a policy without checks always passes). Each check is evaluated once per instance, through
 * its type's module (`checks/*`), which is where the per-type rules live, and its result then goes through
 * the check's enforcement and the identity's exceptions (enforcement.ts): every decision made from here
 * (session requests, service listings, explanations, summaries, the engine) sees the same effective result.
 */
import type { Identity, PolicyType, Service, ServicePolicy } from '../../model.js';
import { moduleFor } from '../../posture/checks/index.js';
import type { CheckResult, EvaluationContext, PostureSnapshot, PostureCheck } from '../../posture-model.js';
import type { AccessResolver } from './access-resolver.js';
import { effectiveResult } from './enforcement.js';

export interface CheckOutcome {
  check: PostureCheck;
  result: CheckResult;
}

export interface PolicyOutcome {
  policy: ServicePolicy;
  checks: CheckOutcome[];
  isPassing: boolean;
}

export interface AccessDecision {
  granted: boolean;
  /** every policy of the requested type that selects the identity and the service */
  outcomes: PolicyOutcome[];
}

export class SessionEvaluation {
  private readonly results = new Map<string, CheckResult>();
  /**
   * The types' own results by check object, before enforcement. A type's result depends only on the check,
   * the snapshot and the context, so two evaluations of one snapshot for one session (an impact preview's
   * before and after) may share this map: a check both catalogues hold is then evaluated once.
   */
  private readonly typeResults: Map<PostureCheck, CheckResult>;
  private readonly policies = new Map<string, PolicyOutcome>();
  readonly ctx: EvaluationContext;

  constructor(
    readonly resolver: AccessResolver,
    readonly data: PostureSnapshot | null,
    apiSessionId: string,
    now: Date,
    /** whose access this is: exceptions name identities by id or by role attribute */
    readonly identity: Pick<Identity, 'id' | 'roleAttributes'>,
    sharedWith?: SessionEvaluation,
  ) {
    this.ctx = { apiSessionId, now };
    const same = (other: SessionEvaluation) =>
      other.data === data && other.ctx.apiSessionId === apiSessionId && +other.ctx.now === +now;
    if (sharedWith && !same(sharedWith))
      throw new Error('only evaluations of one snapshot for one session share type results');
    this.typeResults = sharedWith?.typeResults ?? new Map();
  }

  /** The check's effective result: its type's result, let through while not enforced (enforcement.ts). */
  check(check: PostureCheck): CheckResult {
    let result = this.results.get(check.id);
    if (!result) {
      let raw = this.typeResults.get(check);
      if (!raw) this.typeResults.set(check, (raw = moduleFor(check).evaluate(check, this.data, this.ctx)));
      const { now } = this.ctx;
      result = effectiveResult(check, raw, this.resolver.exceptionUntil(this.identity, check.id, now), now);
      this.results.set(check.id, result);
    }
    return result;
  }

  policy(policy: ServicePolicy): PolicyOutcome {
    let outcome = this.policies.get(policy.id);
    if (!outcome) {
      const checks = this.resolver.checksOf(policy).map((check) => ({ check, result: this.check(check) }));
      outcome = { policy, checks, isPassing: checks.every((c) => c.result.isPassing) };
      this.policies.set(policy.id, outcome);
    }
    return outcome;
  }

  access(identity: Identity, service: Service, type: PolicyType): AccessDecision {
    const outcomes = this.resolver.policiesFor(identity, service, type).map((p) => this.policy(p));
    return { granted: outcomes.some((o) => o.isPassing), outcomes };
  }

  /**
   * Of `services`, the ids `access(…).granted` holds for: the same policies and the same (cached) results,
   * each policy of the identity asked once for all the services, for a caller deciding thousands of pairs
   * (an impact preview).
   */
  grantedAmong(identity: Identity, services: readonly Service[], type: PolicyType): Set<string> {
    const granted = new Set<string>();
    for (const policy of this.resolver.policiesOf(identity)) {
      if (policy.type !== type) continue;
      const ids = this.resolver.serviceIdsOf(policy);
      const selected = services.filter((s) => ids.has(s.id) && !granted.has(s.id));
      if (selected.length > 0 && this.policy(policy).isPassing) for (const s of selected) granted.add(s.id);
    }
    return granted;
  }

  /**
   * The earliest moment a check evaluated so far will change its result by itself, or null: its type's own
   * moment (an MFA timeout) or the end of what lets it through (a warn deadline, an exception's expiry).
   */
  nextChangeAt(): Date | null {
    let next: Date | null = null;
    for (const outcome of this.policies.values()) {
      for (const { check, result } of outcome.checks) {
        for (const at of [
          moduleFor(check).nextChangeAt(check, this.data, this.ctx),
          result.notEnforced?.until,
        ]) {
          if (at && (!next || at.getTime() < next.getTime())) next = at;
        }
      }
    }
    return next;
  }
}
