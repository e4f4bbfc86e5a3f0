/**
 * An audit event as the management API shows it, and as webhooks and syslog carry it: one shape, so a
 * delivered event can be looked up by its id and reads the same as the list's.
 */
import { iso } from '../http/envelope.js';
import type { AuditEvent } from './audit-model.js';

export const auditEventToWire = (e: AuditEvent) => ({
  id: e.id,
  type: e.type,
  createdAt: iso(e.createdAt),
  actor: e.actor,
  address: e.address,
  identityId: e.identityId,
  serviceId: e.serviceId,
  reference: e.reference,
  details: e.details,
});
