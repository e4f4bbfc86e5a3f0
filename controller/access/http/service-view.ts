/**
 * A service as the client API lists it: the management view plus the caller's `permissions` and, per policy
 * granting it, the posture queries the agent must answer with their current results.
 */
import { iso, selfLinks } from '../../http/envelope.js';
import { POLICY_TYPES, type PolicyType } from '../../model.js';
import { serviceToWire } from '../../catalogue/service-routes.js';
import type { ServiceGrant } from '../decisions/access-resolver.js';
import type { SessionEvaluation } from '../decisions/session-evaluation.js';
import { moduleFor } from '../../posture/checks/index.js';
import type { CheckResult, PostureCheck } from '../../posture-model.js';

/** For MFA, the later of the check's own update and the wake/unlock it prompts on (OpenZiti's LastUpdatedAt). */
function queryUpdatedAt(check: PostureCheck, evaluation: SessionEvaluation): Date {
  if (check.typeId !== 'MFA') return check.updatedAt;
  const session = evaluation.data?.apiSessions[evaluation.ctx.apiSessionId];
  const events = [
    check.promptOnWake ? session?.wokenAt : null,
    check.promptOnUnlock ? session?.unlockedAt : null,
  ];
  return events.reduce<Date>((latest, at) => (at && at > latest ? at : latest), check.updatedAt);
}

export function postureQueryToWire(check: PostureCheck, result: CheckResult, evaluation: SessionEvaluation) {
  const module = moduleFor(check);
  const { data, ctx } = evaluation;
  const timeoutRemaining = module.timeoutRemaining(check, data, ctx);
  return {
    id: check.id,
    name: check.name,
    createdAt: iso(check.createdAt),
    updatedAt: iso(queryUpdatedAt(check, evaluation)),
    _links: selfLinks('posture-checks', check.id),
    tags: check.tags,
    queryType: check.typeId,
    isPassing: result.isPassing,
    timeout: module.timeoutSeconds(check),
    timeoutRemaining,
    ...(timeoutRemaining >= 0
      ? { timeoutAt: iso(new Date(ctx.now.getTime() + timeoutRemaining * 1000)) }
      : {}),
    ...module.queryFields(check),
    // Postern's additions, for the caller's own device: why it fails and the administrator's advice.
    ...userFacingReason(result),
    ...(check.remediation ? { remediation: check.remediation } : {}),
  };
}

/**
 * Why the query fails, and what lets it through anyway: a warning with its deadline, or an exception with its
 * expiry. A report-only check the device fails reads exactly like a passing one: its user is not told.
 */
function userFacingReason({ failure, notEnforced }: CheckResult) {
  if (!failure || notEnforced?.because === 'report-only') return {};
  const until = notEnforced?.until ? iso(notEnforced.until) : null;
  if (notEnforced?.because === 'warn') return { reason: failure, warning: { enforceFrom: until } };
  if (notEnforced?.because === 'exception') return { reason: failure, exception: { expiresAt: until } };
  return { reason: failure };
}

/** The caller's permissions on a service: each type of the policies that grant it. */
export function permissionsOf(grant: ServiceGrant): PolicyType[] {
  return POLICY_TYPES.filter((t) => grant.policies.some((p) => p.type === t));
}

export function postureQuerySets(grant: ServiceGrant, evaluation: SessionEvaluation) {
  if (!evaluation.resolver.anyPostureChecks()) {
    // OpenZiti's placeholders while no posture check exists at all, one per permission.
    return permissionsOf(grant).map((type) => ({
      policyId: `dummy ${type.toLowerCase()} policy: no posture checks defined`,
      policyType: type,
      isPassing: true,
      postureQueries: [],
    }));
  }
  return grant.policies.map((policy) => {
    const outcome = evaluation.policy(policy);
    return {
      policyId: policy.id,
      policyType: policy.type,
      isPassing: outcome.isPassing,
      postureQueries: outcome.checks.map(({ check, result }) =>
        postureQueryToWire(check, result, evaluation),
      ),
    };
  });
}

/** `refusalReference`: Postern's addition on a service this API session may not Dial (audit/refusal-references.ts). */
export function clientServiceToWire(
  grant: ServiceGrant,
  evaluation: SessionEvaluation,
  config: Record<string, unknown> = {},
  refusalReference?: string,
) {
  // Onto the wire form just built, not a spread into a new literal (src/common/with-fields.ts says why).
  return Object.assign(
    serviceToWire(grant.service),
    { config, permissions: permissionsOf(grant), postureQueries: postureQuerySets(grant, evaluation) },
    refusalReference ? { refusalReference } : {},
  );
}
