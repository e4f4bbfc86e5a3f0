/** Edge sessions and failed service requests as the APIs show them. */
import { iso, selfLinks } from '../../http/envelope.js';
import type { Service } from '../../model.js';
import type { SessionEdgeRouter } from '../../../src/api/data-plane.js';
import { ref } from '../../routes/management/refs.js';
import type { EdgeSession, FailedServiceRequest } from '../posture-repository.js';

export function edgeSessionToWire(
  session: EdgeSession,
  service: Service | undefined,
  edgeRouters: SessionEdgeRouter[] = [],
) {
  return {
    id: session.id,
    createdAt: iso(session.createdAt),
    updatedAt: iso(session.updatedAt),
    _links: selfLinks('sessions', session.id),
    tags: {},
    type: session.type,
    token: session.token,
    apiSessionId: session.apiSessionId,
    apiSession: ref('api-sessions', session.apiSessionId, session.apiSessionId),
    serviceId: session.serviceId,
    service: ref('services', session.serviceId, service?.name ?? session.serviceId),
    identityId: session.identityId,
    edgeRouters,
  };
}

export function failedRequestToWire(record: FailedServiceRequest) {
  return { ...record, when: iso(record.when) };
}
