/**
 * What a refused session request leaves behind: the failure record an administrator reads later
 * (`GET /identities/<id>/failed-service-requests`) and the 409 the client gets now, both in OpenZiti's shape.
 */
import type { PolicyType, Service } from '../../model.js';
import { ApiError } from '../../api-error.js';
import type { CheckFailure, FailedServiceRequest, PolicyFailure } from '../../store/posture-repository.js';
import type { PolicyOutcome } from './session-evaluation.js';

/** Postern keeps the last 50 per identity (OpenZiti 100). */
export const FAILED_REQUESTS_KEPT = 50;

function policyFailure(outcome: PolicyOutcome): PolicyFailure {
  const checks: CheckFailure[] = outcome.checks
    .filter((c) => !c.result.isPassing)
    .map(({ check, result }) => ({
      postureCheckId: check.id,
      postureCheckName: check.name,
      postureCheckType: check.typeId,
      actualValue: result.actualValue,
      expectedValue: result.expectedValue,
      ...result.extra,
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      ...(result.failure === undefined ? {} : { code: result.failure.code }),
    }));
  return { policyId: outcome.policy.id, policyName: outcome.policy.name, checks };
}

export function failedRequest(
  apiSessionId: string,
  service: Service,
  sessionType: PolicyType,
  outcomes: readonly PolicyOutcome[],
  when: Date,
): FailedServiceRequest {
  return {
    apiSessionId,
    serviceId: service.id,
    serviceName: service.name,
    sessionType,
    when,
    policyFailures: outcomes.filter((o) => !o.isPassing).map(policyFailure),
  };
}

/**
 * 409 INVALID_POSTURE with OpenZiti's cause: the failing policy ids, and per policy its failing checks; with
 * `reference`, Postern's addition: the audit event's reference the user can quote (audit/refused-requests.ts).
 */
export function invalidPosture(outcomes: readonly PolicyOutcome[], reference?: string): ApiError {
  const failing = outcomes.filter((o) => !o.isPassing);
  const data = Object.fromEntries(
    failing.map((o) => [
      o.policy.id,
      o.checks
        .filter((c) => !c.result.isPassing)
        .map((c) => ({ id: c.check.id, typeId: c.check.typeId, isPassing: false })),
    ]),
  );
  return new ApiError(409, 'INVALID_POSTURE', 'Posture response data is missing or wrong', {
    message: `Failed to pass posture checks for service policies: [${failing.map((o) => o.policy.id).join(' ')}]`,
    data,
    ...(reference === undefined ? {} : { reference }),
  });
}
