/**
 * The rows of posture evaluation's records (edge sessions, failed requests) as both stores read and write them:
 * SQLite's store/sqlite/posture-records.ts and PostgreSQL's store/postgres/posture-records.ts share these.
 */
import type { PolicyType } from '../../model.js';
import type { EdgeSession, FailedServiceRequest } from '../../posture/posture-repository.js';

export interface SessionRow {
  id: string;
  token: string;
  identity_id: string;
  api_session_id: string;
  service_id: string;
  type: PolicyType;
  created_at: string;
  updated_at: string;
}

export const sessionOf = (r: SessionRow): EdgeSession => ({
  id: r.id,
  token: r.token,
  identityId: r.identity_id,
  apiSessionId: r.api_session_id,
  serviceId: r.service_id,
  type: r.type,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/** The columns of an edge session, in the order sessionValues gives their values. */
export const SESSION_COLUMNS =
  'id, token, identity_id, api_session_id, service_id, type, created_at, updated_at';

/** An edge session's values for an INSERT naming SESSION_COLUMNS. */
export const sessionValues = (s: EdgeSession): string[] => [
  s.id,
  s.token,
  s.identityId,
  s.apiSessionId,
  s.serviceId,
  s.type,
  s.createdAt.toISOString(),
  s.updatedAt.toISOString(),
];

export interface FailureRow {
  identity_id: string;
  api_session_id: string;
  service_id: string;
  service_name: string;
  session_type: PolicyType;
  at: string;
  policy_failures: string;
}

export const failureOf = (r: FailureRow): FailedServiceRequest => ({
  apiSessionId: r.api_session_id,
  serviceId: r.service_id,
  serviceName: r.service_name,
  sessionType: r.session_type,
  when: new Date(r.at),
  policyFailures: JSON.parse(r.policy_failures) as FailedServiceRequest['policyFailures'],
});

/** The columns of a failed request, in the order failureValues gives their values. */
export const FAILURE_COLUMNS =
  'identity_id, api_session_id, service_id, service_name, session_type, at, policy_failures';

/** A failed request's values for an INSERT naming FAILURE_COLUMNS. */
export const failureValues = (identityId: string, r: FailedServiceRequest): string[] => [
  identityId,
  r.apiSessionId,
  r.serviceId,
  r.serviceName,
  r.sessionType,
  r.when.toISOString(),
  JSON.stringify(r.policyFailures),
];
