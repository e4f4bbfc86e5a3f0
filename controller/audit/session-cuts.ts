/**
 * Session cuts on the trail: each edge session the posture engine revokes (and so each service an identity's
 * device loses, whose tunnels every router then closes), with the cause in plain words and as a machine code,
 * written in the evaluation's transaction after its access transitions (a posture failure reads, in order:
 * `access.refused`, then `session.cut`).
 *
 * Only sessions the evaluation actually deleted are recorded (a repeated evaluation that finds nothing to cut
 * writes nothing), and at most MAX_CUT_EVENTS per evaluation: an identity holding sessions to hundreds of
 * services, cut at once, gets that many events and one more counting the rest, not a write per session.
 */
import type { EdgeSession } from '../store/posture-repository.js';
import { recordAudit, type AuditSink } from './audit-trail.js';

export const MAX_CUT_EVENTS = 100;

export const CUT_CAUSES = {
  posture: 'a posture check the policy requires is failing',
  policy: 'no policy grants the identity this service any more',
  'identity-disabled': 'the identity is disabled',
  'service-deleted': 'the service no longer exists',
  'api-session-ended': 'the API session it belonged to has ended',
} as const;
export type CutCause = keyof typeof CUT_CAUSES;

export interface SessionCut {
  session: EdgeSession;
  cause: CutCause;
  serviceName: string | null;
}

export async function recordSessionCuts(
  sink: AuditSink,
  cuts: readonly SessionCut[],
  at: Date,
): Promise<void> {
  for (const { session, cause, serviceName } of cuts.slice(0, MAX_CUT_EVENTS))
    await recordAudit(
      sink,
      {
        type: 'session.cut',
        identityId: session.identityId,
        serviceId: session.serviceId,
        details: {
          sessionId: session.id,
          apiSessionId: session.apiSessionId,
          sessionType: session.type,
          serviceName,
          causeCode: cause,
          cause: CUT_CAUSES[cause],
        },
      },
      at,
    );
  const rest = cuts.slice(MAX_CUT_EVENTS);
  if (rest.length === 0) return;
  await recordAudit(
    sink,
    {
      type: 'session.cut',
      identityId: rest[0]!.session.identityId,
      details: {
        causeCode: 'more-sessions',
        cause: `${rest.length} more sessions were cut in the same evaluation`,
        count: rest.length,
        causeCodes: [...new Set(rest.map((c) => c.cause))],
      },
    },
    at,
  );
}
