/**
 * One event of the audit trail (docs/AUDIT.md): what happened, when, who did it and from where, to which
 * identity and service, with a short reference a user can quote, and its type's details. Stored as a document
 * like the catalogue's entities (`name` is its id: events have no name of their own).
 */
import type { Entity } from '../model.js';
import type { Actor } from '../posture-exception-model.js';

export type { Actor };

export const AUDIT_EVENT_TYPES = [
  'admin.created',
  'admin.updated',
  'admin.deleted',
  'auth.signed-in',
  'auth.sign-in-failed',
  'access.refused',
  'access.granted',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export interface AuditEvent extends Entity {
  type: AuditEventType;
  /** who did it; null when nobody did (the controller decided, a sign-in failed before anyone was known) */
  actor: Actor | null;
  /** the actor's id again, flat, so the list can filter on it (`actorId = "…"`) */
  actorId: string | null;
  /** the client address the request came from; null for what no request caused */
  address: string | null;
  identityId: string | null;
  serviceId: string | null;
  /** a short code a user can quote (`7K2Q-PX`); not unique on its own, the time narrows it */
  reference: string;
  details: Record<string, unknown>;
}

/** What a writer says; the trail fills in the id, the moment and the reference. */
export interface AuditRecord {
  type: AuditEventType;
  actor?: Actor | null;
  address?: string | null;
  identityId?: string | null;
  serviceId?: string | null;
  details?: Record<string, unknown>;
}
