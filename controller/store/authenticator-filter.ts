/**
 * The fields an OpenZiti filter may name on `GET /authenticators`, under OpenZiti's names (`identity`,
 * `method`, `certFingerprint`, `updbUsername`) and Postern's (`identityId`, `username`): plain columns of the
 * authenticators table, the same SQL on SQLite and PostgreSQL (whose text columns are COLLATE "C" already).
 * Certificates have no username: without a `sort by`, named ones come first by username, then by fingerprint.
 */
import type { FilterField } from './filter/index.js';

const column = (name: string, type: FilterField['type'], notNull = false): FilterField => ({
  sql: `authenticators.${name}`,
  type,
  notNull,
});

export const AUTHENTICATOR_FILTER_FIELDS: Record<string, FilterField> = {
  id: column('id', 'string', true),
  createdAt: column('created_at', 'datetime', true),
  updatedAt: column('updated_at', 'datetime', true),
  method: column('method', 'string', true),
  identity: column('identity_id', 'string', true),
  identityId: column('identity_id', 'string', true),
  certFingerprint: column('cert_fingerprint', 'string'),
  updbUsername: column('username', 'string'),
  username: column('username', 'string'),
};

/** The order of a list without `sort by` (ties by id, so a page never repeats or skips a row). */
export const AUTHENTICATOR_DEFAULT_ORDER =
  'authenticators.username IS NULL, authenticators.username, authenticators.cert_fingerprint, authenticators.id';

/** `orderBy` of a compiled filter, ties broken by id in the direction of its last term, or the default. */
export function authenticatorOrder(orderBy: string): string {
  if (!orderBy) return AUTHENTICATOR_DEFAULT_ORDER;
  return `${orderBy}, authenticators.id ${/\bDESC$/i.test(orderBy) ? 'DESC' : 'ASC'}`;
}
