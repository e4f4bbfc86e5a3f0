/**
 * Access transitions on the trail: per identity and service, the moment Dial access goes from granted to
 * refused (with each failing check's actual and expected values) and from refused back to granted. Called by
 * the posture engine in its evaluation's transaction, and only when the evaluation changed what the identity
 * can reach (its access digest moved, a session was cut, or the catalogue changed): a posture report that
 * repeats what is stored reads and writes nothing here (docs/PERFORMANCE.md).
 *
 * The state a transition is measured from is the identity's latest access event for the service; with none,
 * access counts as granted (what a policy selecting the identity means), so the first refusal is recorded and
 * a first grant is not.
 */
import type { Identity, Service } from '../model.js';
import type { AccessResolver } from '../access/decisions/access-resolver.js';
import type { AccessDecision, SessionEvaluation } from '../access/decisions/session-evaluation.js';
import type { AuditEvent } from './audit-model.js';
import { recordAudit, type AuditSink } from './audit-trail.js';

/** The latest access events read per evaluation: far more services than one identity's policies reach. */
const MAX_REMEMBERED = 500;

const quoted = (id: string) => `"${id.replace(/["\\]/g, '')}"`;

/** Of the identity's API sessions, the one faring best speaks for the device (the check-state recorder's rule). */
function bestDecision(identity: Identity, service: Service, evaluations: readonly SessionEvaluation[]) {
  let best: AccessDecision | undefined;
  for (const evaluation of evaluations) {
    const decision = evaluation.access(identity, service, 'Dial');
    if (decision.granted) return decision;
    best ??= decision;
  }
  return best;
}

const failingChecks = (decision: AccessDecision) =>
  decision.outcomes.flatMap((o) =>
    o.checks
      .filter((c) => !c.result.isPassing)
      .map((c) => ({
        policyId: o.policy.id,
        postureCheckId: c.check.id,
        postureCheckName: c.check.name,
        typeId: c.check.typeId,
        actualValue: c.result.actualValue ?? null,
        expectedValue: c.result.expectedValue ?? null,
        reason: c.result.reason ?? null,
      })),
  );

export async function recordAccessTransitions(
  sink: AuditSink,
  resolver: AccessResolver,
  identity: Identity,
  evaluations: readonly SessionEvaluation[],
  now: Date,
): Promise<void> {
  if (evaluations.length === 0) return;
  const services = new Map<string, Service>();
  for (const policy of resolver.policiesOf(identity))
    if (policy.type === 'Dial') for (const s of resolver.servicesOf(policy)) services.set(s.id, s);
  if (services.size === 0) return;

  const { store } = sink;
  const latest = new Map<string, AuditEvent>();
  const page = await store.auditEvents.list({
    limit: MAX_REMEMBERED,
    offset: 0,
    filter:
      `identityId = ${quoted(identity.id)} and type in ["access.refused", "access.granted"] ` +
      `sort by createdAt desc limit ${MAX_REMEMBERED}`,
  });
  for (const event of page.items)
    if (event.serviceId && !latest.has(event.serviceId)) latest.set(event.serviceId, event);

  for (const service of services.values()) {
    const decision = bestDecision(identity, service, evaluations);
    if (!decision) continue;
    const wasGranted = (latest.get(service.id)?.type ?? 'access.granted') === 'access.granted';
    if (decision.granted === wasGranted) continue;
    await recordAudit(
      sink,
      {
        type: decision.granted ? 'access.granted' : 'access.refused',
        identityId: identity.id,
        serviceId: service.id,
        details: decision.granted
          ? { serviceName: service.name }
          : {
              serviceName: service.name,
              disabled: identity.disabled,
              failingChecks: failingChecks(decision),
            },
      },
      now,
    );
  }
}
