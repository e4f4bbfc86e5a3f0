/**
 * The api_sessions row as both databases read and write it (store/repositories/api-session-queries.ts). The session's client-supplied parts
 * (envInfo, sdkInfo, …) travel as one JSON text column, `doc`.
 */
import type { ApiSession } from '../../model.js';

export interface ApiSessionRow {
  id: string;
  identity_id: string;
  authenticator_id: string;
  doc: string;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

type SessionDoc = Omit<
  ApiSession,
  'id' | 'identityId' | 'authenticatorId' | 'createdAt' | 'updatedAt' | 'lastActivityAt'
>;

export function apiSessionOf(r: ApiSessionRow): ApiSession {
  const doc = JSON.parse(r.doc) as SessionDoc;
  // Onto the document just parsed, not a spread into a new literal (src/common/with-fields.ts says why).
  return Object.assign(doc, {
    id: r.id,
    identityId: r.identity_id,
    authenticatorId: r.authenticator_id,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    lastActivityAt: new Date(r.last_activity_at),
  });
}

/** The `doc` column of a session: everything but the parts with columns of their own. */
export function apiSessionDoc(s: ApiSession): string {
  const {
    id: _i,
    identityId: _d,
    authenticatorId: _a,
    createdAt: _c,
    updatedAt: _u,
    lastActivityAt: _l,
    ...doc
  } = s;
  return JSON.stringify(doc);
}

/** The values of an insert, in the column order both stores' INSERT names them. */
export const apiSessionInsertValues = (s: ApiSession, tokenHash: string) => [
  s.id,
  tokenHash,
  s.identityId,
  s.authenticatorId,
  apiSessionDoc(s),
  s.createdAt.toISOString(),
  s.updatedAt.toISOString(),
  s.lastActivityAt.toISOString(),
];
