/** Edge sessions and failed service requests as the APIs show them. */
import { iso, selfLinks } from '../../http/envelope.js';
import type { Service } from '../../model.js';
import type { SessionEdgeRouter } from '../../../src/api/data-plane.js';
import { ref } from '../../http/refs.js';
import type { EdgeSession, FailedServiceRequest } from '../../store/posture-repository.js';

/**
 * `token` is the session's token for its own API session's client, and '' for administrators: OpenZiti's
 * management detail requires the field, and an administrator is never shown a user's token.
 */
export function edgeSessionToWire(
  session: EdgeSession,
  token: string,
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
    token,
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
