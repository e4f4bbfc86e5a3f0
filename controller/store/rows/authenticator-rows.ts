/**
 * The authenticators row as both databases answer it (store/repositories/authenticator-queries.ts). One table holds both kinds; the
 * columns of the other kind are NULL.
 */
import type { Authenticator } from '../../model.js';

export interface AuthenticatorRow {
  id: string;
  identity_id: string;
  method: string;
  username: string | null;
  password_hash: string | null;
  cert_fingerprint: string | null;
  cert_pem: string | null;
  created_at: string;
  updated_at: string;
}

export function authenticatorOf(r: AuthenticatorRow): Authenticator {
  const base = {
    id: r.id,
    identityId: r.identity_id,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
  if (r.method === 'cert')
    return { ...base, method: 'cert', fingerprint: r.cert_fingerprint ?? '', certPem: r.cert_pem ?? '' };
  return { ...base, method: 'updb', username: r.username ?? '', passwordHash: r.password_hash ?? '' };
}
