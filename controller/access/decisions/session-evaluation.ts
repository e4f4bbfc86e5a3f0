/**
 * The access decision for one API session at one instant: a policy passes when all its posture checks pass,
 * and a service is granted for a session type when any policy of that type selecting the identity and the
 * service passes (a policy without checks always passes). Each check is evaluated once per instance, through
 * its type's module (`checks/*`), which is where the per-type rules live.
 */
import type { Identity, PolicyType, Service, ServicePolicy } from '../../model.js';
import { moduleFor } from '../../posture/checks/index.js';
import type { CheckResult, EvaluationContext, PostureSnapshot, PostureCheck } from '../../posture-model.js';
import type { AccessResolver } from './access-resolver.js';

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
  ) {
    this.ctx = { apiSessionId, now };
  }

  check(check: PostureCheck): CheckResult {
    let result = this.results.get(check.id);
    if (!result) {
      result = moduleFor(check).evaluate(check, this.data, this.ctx);
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

  /** The earliest moment a check evaluated so far will change its result by itself, or null. */
  nextChangeAt(): Date | null {
    let next: Date | null = null;
    for (const outcome of this.policies.values()) {
      for (const { check } of outcome.checks) {
        const at = moduleFor(check).nextChangeAt(check, this.data, this.ctx);
        if (at && (!next || at.getTime() < next.getTime())) next = at;
      }
    }
    return next;
  }
}
