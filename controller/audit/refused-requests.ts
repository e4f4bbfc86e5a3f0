/**
 * Refused session requests on the trail: `POST /sessions` answered 409 INVALID_POSTURE leaves an
 * `access.request-refused` event whose reference the refusal carries (`error.cause.reference`), so the user
 * who sees "access refused" has a code to quote and the administrator finds the failing checks by it.
 *
 * Bounded: an agent retries a refused service on every new local connection (a browser opens many), so at
 * most one event is written per identity and service within REQUEST_REFUSAL_WINDOW_MS; a refusal inside that
 * window answers with the latest event's reference and writes nothing (docs/SECURITY.md). Called under the
 * identity's access lock in the request's transaction, so two instances refusing at once still write one.
 */
import type { Identity, PolicyType, Service } from '../model.js';
import type { AccessDecision } from '../access/decisions/session-evaluation.js';
import { failingChecks } from './access-transitions.js';
import { recordAudit, type AuditSink } from './audit-trail.js';

/** At most one `access.request-refused` event per identity and service within this long. */
export const REQUEST_REFUSAL_WINDOW_MS = 60_000;

const quoted = (id: string) => `"${id.replace(/["\\]/g, '')}"`;

/** Records the refusal (or finds the one recorded within the window); answers the reference to quote. */
export async function recordRefusedRequest(
  sink: AuditSink,
  identity: Identity,
  service: Service,
  refusal: { type: PolicyType; apiSessionId: string; decision: Pick<AccessDecision, 'outcomes'> },
  now: Date,
): Promise<string> {
  const since = new Date(now.getTime() - REQUEST_REFUSAL_WINDOW_MS).toISOString();
  const recent = await sink.store.auditEvents.list({
    limit: 1,
    offset: 0,
    filter:
      `identityId = ${quoted(identity.id)} and serviceId = ${quoted(service.id)} and ` +
      `type = "access.request-refused" and createdAt > datetime(${since}) sort by createdAt desc limit 1`,
  });
  const latest = recent.items[0];
  if (latest) return latest.reference;
  const event = await recordAudit(
    sink,
    {
      type: 'access.request-refused',
      identityId: identity.id,
      serviceId: service.id,
      details: {
        serviceName: service.name,
        sessionType: refusal.type,
        apiSessionId: refusal.apiSessionId,
        failingChecks: failingChecks(refusal.decision),
      },
    },
    now,
  );
  return event.reference;
}
