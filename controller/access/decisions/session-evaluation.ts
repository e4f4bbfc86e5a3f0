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
  private readonly policies = new Map<string, PolicyOutcome>();
  readonly ctx: EvaluationContext;

  constructor(
    readonly resolver: AccessResolver,
    readonly data: PostureSnapshot | null,
    apiSessionId: string,
    now: Date,
    /** whose access this is: exceptions name identities by id or by role attribute */
    readonly identity: Pick<Identity, 'id' | 'roleAttributes'>,
  ) {
    this.ctx = { apiSessionId, now };
  }

  /** The check's effective result: its type's result, let through while not enforced (enforcement.ts). */
  check(check: PostureCheck): CheckResult {
    let result = this.results.get(check.id);
    if (!result) {
      const raw = moduleFor(check).evaluate(check, this.data, this.ctx);
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
   * `access(…).granted` alone: the same policies and the same (cached) results, without listing every outcome,
   * for a caller deciding thousands of pairs (an impact preview).
   */
  granted(identity: Identity, service: Service, type: PolicyType): boolean {
    return this.resolver
      .policiesOf(identity)
      .some((p) => p.type === type && this.resolver.selectsService(p, service) && this.policy(p).isPassing);
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
