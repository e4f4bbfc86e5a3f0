import { ApiError } from '../api-error.js';
import type { MfaAuditFilter } from '../store/mfa-repository.js';

/**
 * The audit log's `filter` parameter, in the subset of OpenZiti's query language an operator needs:
 * equality on the audit fields, joined with `and`, e.g.
 * `eventType = "authenticate" and outcome = "failure" and sourceIp = "10.0.0.7"`.
 */
export const AUDIT_FILTER_FIELDS: readonly (keyof MfaAuditFilter)[] = [
  'identityId',
  'eventType',
  'outcome',
  'apiSessionId',
  'actorIdentityId',
  'sourceIp',
  'factor',
];

const CLAUSE = /^\s*([A-Za-z]+)\s*=\s*"((?:[^"\\]|\\.)*)"\s*/;
const AND = /^and\b/i;

export function parseAuditFilter(filter: string | undefined): MfaAuditFilter {
  const result: MfaAuditFilter = {};
  let rest = (filter ?? '').trim();
  while (rest !== '') {
    const m = CLAUSE.exec(rest);
    const field = m?.[1] as keyof MfaAuditFilter | undefined;
    if (!m || !field || !AUDIT_FILTER_FIELDS.includes(field)) throw invalidFilter(filter ?? '');
    result[field] = m[2]!.replace(/\\(.)/g, '$1');
    rest = rest.slice(m[0].length);
    if (rest === '') break;
    if (!AND.test(rest)) throw invalidFilter(filter ?? '');
    rest = rest.replace(AND, '').trim();
    if (rest === '') throw invalidFilter(filter ?? '');
  }
  return result;
}

function invalidFilter(filter: string): ApiError {
  return new ApiError(
    400,
    'INVALID_FILTER',
    `Supported filters: <field> = "value", joined with and; fields: ${AUDIT_FILTER_FIELDS.join(', ')}`,
    { field: 'filter', reason: 'unsupported filter expression', value: filter },
  );
}
