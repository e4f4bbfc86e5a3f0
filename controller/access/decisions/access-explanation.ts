/**
 * Why an identity may or may not reach a service, for an administrator: every service policy selecting both,
 * each of its posture checks with its result, the actual and expected values, the reason code (the same one
 * the device's own user is given) and the check's remediation text. It is the same decision `POST /sessions`
 * makes (SessionEvaluation), only written out in full instead of reduced to granted or refused.
 */
import type { ApiSession, Identity, PolicyType, Service, ServicePolicy } from '../../model.js';
import { POLICY_TYPES } from '../../model.js';
import type { PostureSnapshot } from '../../posture-model.js';
import type { Store } from '../../store/repository.js';
import type { CheckExplanation, PolicyExplanation } from '../../../src/api/access-explanation.js';
import { AccessResolver } from './access-resolver.js';
import { SessionEvaluation, type PolicyOutcome } from './session-evaluation.js';

export type { CheckExplanation, PolicyExplanation };

/** A policy that selects the service but not the identity: what would have to change for it to apply. */
export interface UnselectedPolicy {
  id: string;
  name: string;
  type: PolicyType;
  semantic: string;
  identityRoles: string[];
}

export interface AccessExplanation {
  service: Service;
  identity: Identity;
  /** the API session evaluated (MFA checks are per session); null when the identity has none */
  apiSessionId: string | null;
  /** per session type: true or false, or null when no policy of that type selects both */
  granted: Record<PolicyType, boolean | null>;
  policies: PolicyExplanation[];
  /** filled by `explainAccess` only: the service's other policies */
  otherPolicies?: UnselectedPolicy[];
}

/**
 * The session an administrator most likely asks about: the one given, else the identity's most recently
 * active one. With none, checks are evaluated as for a new sign-in (MFA not yet passed).
 */
export async function sessionToExplain(
  store: Store,
  identity: Identity,
  requested?: string,
): Promise<ApiSession | undefined> {
  const sessions = await store.apiSessions.listByIdentity(identity.id);
  if (requested !== undefined) return sessions.find((s) => s.id === requested);
  return latestSession(sessions);
}

/** The most recently active of an identity's API sessions (the first of a tie, in the store's order). */
export function latestSession(sessions: readonly ApiSession[]): ApiSession | undefined {
  return sessions.reduce<ApiSession | undefined>(
    (latest, s) => (!latest || s.lastActivityAt > latest.lastActivityAt ? s : latest),
    undefined,
  );
}

function checkToExplanation({ check, result }: PolicyOutcome['checks'][number]): CheckExplanation {
  return {
    id: check.id,
    name: check.name,
    typeId: check.typeId,
    isPassing: result.isPassing,
    actualValue: result.actualValue,
    expectedValue: result.expectedValue,
    ...(result.reason === undefined || (result.isPassing && !result.notEnforced)
      ? {}
      : { reason: result.reason }),
    ...(result.failure === undefined ? {} : { failure: result.failure }),
    ...(check.remediation ? { remediation: check.remediation } : {}),
    // Failing but let through: the administrator sees why (report-only, warn, an exception) and until when.
    ...(result.notEnforced
      ? {
          notEnforced: {
            because: result.notEnforced.because,
            until: result.notEnforced.until?.toISOString() ?? null,
          },
        }
      : {}),
  };
}

function policyToExplanation(outcome: PolicyOutcome): PolicyExplanation {
  return {
    id: outcome.policy.id,
    name: outcome.policy.name,
    type: outcome.policy.type,
    semantic: outcome.policy.semantic,
    isPassing: outcome.isPassing,
    postureChecks: outcome.checks.map(checkToExplanation),
  };
}

/** One evaluation of the identity's access, shared by every service explained in the same request. */
export class AccessExplainer {
  readonly evaluation: SessionEvaluation;
  readonly apiSessionId: string | null;

  private constructor(
    readonly identity: Identity,
    readonly resolver: AccessResolver,
    data: PostureSnapshot,
    apiSession: ApiSession | undefined,
    now: Date,
  ) {
    this.apiSessionId = apiSession?.id ?? null;
    // No session: an id no session has, so per-session facts (TOTP passes) read as absent.
    this.evaluation = new SessionEvaluation(resolver, data, apiSession?.id ?? '', now, identity);
  }

  static async create(
    store: Store,
    identity: Identity,
    apiSession: ApiSession | undefined,
    now: Date,
  ): Promise<AccessExplainer> {
    const [resolver, data] = await Promise.all([
      AccessResolver.of(store),
      store.posture.data.load(identity.id),
    ]);
    return new AccessExplainer(identity, resolver, data, apiSession, now);
  }

  /** The policies selecting both, each with its checks and results. */
  explain(service: Service): AccessExplanation {
    const granted = {} as Record<PolicyType, boolean | null>;
    const policies: PolicyExplanation[] = [];
    for (const type of POLICY_TYPES) {
      const decision = this.evaluation.access(this.identity, service, type);
      granted[type] = decision.outcomes.length ? decision.granted : null;
      policies.push(...decision.outcomes.map(policyToExplanation));
    }
    return { service, identity: this.identity, apiSessionId: this.apiSessionId, granted, policies };
  }

  /** As `explain`, plus the service's policies that do not select this identity. */
  explainWithOthers(service: Service): AccessExplanation {
    const explanation = this.explain(service);
    const selected = new Set(explanation.policies.map((p) => p.id));
    const others = this.resolver.policiesSelecting(service).filter((p) => !selected.has(p.id));
    return { ...explanation, otherPolicies: others.map(unselected) };
  }
}

const unselected = (p: ServicePolicy): UnselectedPolicy => ({
  id: p.id,
  name: p.name,
  type: p.type,
  semantic: p.semantic,
  identityRoles: p.identityRoles,
});
