/** An `enrollments` row as both stores read it (ISO text times on both), and the enrollment it holds. */
import type { Enrollment } from '../../model.js';

export interface EnrollmentRow {
  id: string;
  identity_id: string;
  method: string;
  username: string | null;
  token_hash: string;
  nonce: string;
  issued_at: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
  updated_at: string;
}

export const enrollmentOf = (r: EnrollmentRow): Enrollment => ({
  id: r.id,
  identityId: r.identity_id,
  method: r.method === 'updb' ? 'updb' : 'ott',
  username: r.username,
  tokenHash: r.token_hash,
  nonce: r.nonce,
  issuedAt: new Date(r.issued_at),
  expiresAt: new Date(r.expires_at),
  usedAt: r.used_at === null ? null : new Date(r.used_at),
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});
