/**
 * The rows of posture evaluation's records (edge sessions, failed requests) as both stores read and write them
 * (store/repositories/posture-record-queries.ts).
 */
import type { PolicyType } from '../../model.js';
import type { ListQuery } from '../repository.js';
import { compileFilter, type FilterDialect, type FilterField } from '../filter/index.js';
import { MAX_LIMIT } from '../page.js';
import type { EdgeSession, FailedServiceRequest } from '../posture-repository.js';

export interface SessionRow {
  id: string;
  token_hash: string;
  identity_id: string;
  api_session_id: string;
  service_id: string;
  type: PolicyType;
  created_at: string;
  updated_at: string;
}

export const sessionOf = (r: SessionRow): EdgeSession => ({
  id: r.id,
  tokenHash: r.token_hash,
  identityId: r.identity_id,
  apiSessionId: r.api_session_id,
  serviceId: r.service_id,
  type: r.type,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

/** The columns of an edge session, in the order sessionValues gives their values. */
export const SESSION_COLUMNS =
  'id, token_hash, identity_id, api_session_id, service_id, type, created_at, updated_at';

/** An edge session's values for an INSERT naming SESSION_COLUMNS. */
export const sessionValues = (s: EdgeSession): string[] => [
  s.id,
  s.tokenHash,
  s.identityId,
  s.apiSessionId,
  s.serviceId,
  s.type,
  s.createdAt.toISOString(),
  s.updatedAt.toISOString(),
];

/**
 * What the management list's filter may name, as columns both stores declare alike (text, COLLATE "C" on
 * PostgreSQL, ISO times that sort as text). The token hash is not among them: a filter must not probe it.
 */
export const SESSION_FILTER_FIELDS: Record<string, FilterField> = {
  id: { sql: 'edge_sessions.id', type: 'string', notNull: true },
  createdAt: { sql: 'edge_sessions.created_at', type: 'datetime', notNull: true },
  updatedAt: { sql: 'edge_sessions.updated_at', type: 'datetime', notNull: true },
  type: { sql: 'edge_sessions.type', type: 'string', notNull: true },
  apiSessionId: { sql: 'edge_sessions.api_session_id', type: 'string', notNull: true },
  serviceId: { sql: 'edge_sessions.service_id', type: 'string', notNull: true },
  identityId: { sql: 'edge_sessions.identity_id', type: 'string', notNull: true },
};

/**
 * The management list's query as SQL pieces for `SELECT … FROM edge_sessions {where} ORDER BY {order} LIMIT
 * {limit} OFFSET {offset}`: the filter's predicate, sort and paging (within the API's limit), oldest first
 * without a `sort by`, ties broken by id in the direction of the last sort term.
 */
export function sessionListSql(query: ListQuery, dialect: FilterDialect) {
  const compiled =
    query.filter === undefined ? undefined : compileFilter(query.filter, SESSION_FILTER_FIELDS, dialect);
  const orderBy = compiled?.orderBy ?? '';
  const tieBreak = /\bDESC( NULLS (FIRST|LAST))?$/i.test(orderBy) ? 'DESC' : 'ASC';
  return {
    where: compiled?.where ? `WHERE ${compiled.where}` : '',
    params: compiled?.params ?? [],
    order: orderBy
      ? `${orderBy}, edge_sessions.id ${tieBreak}`
      : 'edge_sessions.created_at, edge_sessions.id',
    limit: Math.min(compiled?.limit ?? query.limit, MAX_LIMIT),
    offset: compiled?.offset ?? query.offset,
  };
}

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
