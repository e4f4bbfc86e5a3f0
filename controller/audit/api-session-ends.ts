/**
 * API sessions ending, on the trail: each one, with why, in the transaction that deletes it. An API session
 * ending takes its edge sessions and their tunnels with it (the store's cascade, then every router is told), so
 * this is also the cut of everything the device had open. One event per API session actually deleted: a
 * logout racing the idle sweep records one end, not two.
 */
import type { Actor } from './audit-model.js';
import { recordAudit, type AuditSink } from './audit-trail.js';

export const API_SESSION_END_CAUSES = {
  logout: 'the user signed out',
  'admin-deleted': 'an administrator ended it',
  'idle-timeout': 'it was idle for longer than the session timeout',
  'over-cap': 'the identity opened more sessions than allowed; the least recently used ended',
  'identity-disabled': 'the identity was disabled',
  'identity-deleted': 'the identity was deleted',
  'signer-disabled': 'the external JWT signer that opened it was disabled or deleted',
  'password-changed': "the identity's password was changed",
  'authenticator-deleted': "one of the identity's logins was deleted",
  'mfa-enrolled': 'MFA was turned on: sessions opened without a second factor end',
  'mfa-removed': "the identity's MFA was removed",
} as const;
export type ApiSessionEndCause = keyof typeof API_SESSION_END_CAUSES;

/** Why an API session ends and, when someone ended it by a request, who and from where. */
export interface ApiSessionEnd {
  cause: ApiSessionEndCause;
  actor?: Actor | null;
  address?: string | null;
}

export function recordApiSessionEnd(
  sink: AuditSink,
  session: { id: string; identityId: string },
  end: ApiSessionEnd,
  at: Date,
): Promise<unknown> {
  return recordAudit(
    sink,
    {
      type: 'api-session.ended',
      actor: end.actor ?? null,
      address: end.address ?? null,
      identityId: session.identityId,
      details: { apiSessionId: session.id, causeCode: end.cause, cause: API_SESSION_END_CAUSES[end.cause] },
    },
    at,
  );
}
