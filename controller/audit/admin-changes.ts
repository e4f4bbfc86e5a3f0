/**
 * Administrative changes on the trail: every write through the management CRUD kit (http/crud.ts) records
 * who made it, from which address, to which entity, and the entity before and after with its secrets
 * redacted, in the write's own transaction.
 */
import type { FastifyRequest } from 'fastify';
import type { ControllerContext } from '../platform/context.js';
import type { WriteMode } from '../http/crud.js';
import type { Actor } from './audit-model.js';
import { recordAudit } from './audit-trail.js';
import { redacted } from './redact.js';

const TYPE_OF = {
  create: 'admin.created',
  update: 'admin.updated',
  patch: 'admin.updated',
  delete: 'admin.deleted',
} as const;

/** What a change is recorded of: any stored entity; `identityId` when it belongs to one identity. */
type AuditedEntity = { id: string; identityId?: string | null };

/** The administrator behind a request, as named then; null for an unauthenticated one. */
export const requestActor = (request: FastifyRequest): Actor | null =>
  request.auth ? { id: request.auth.identity.id, name: request.auth.identity.name } : null;

export async function recordAdminChange(
  ctx: ControllerContext,
  request: FastifyRequest,
  entityType: string,
  op: WriteMode | 'delete',
  before: AuditedEntity | undefined,
  after: AuditedEntity | undefined,
): Promise<void> {
  const entity = (after ?? before)!;
  await recordAudit(
    ctx,
    {
      type: TYPE_OF[op],
      actor: requestActor(request),
      address: request.ip,
      // The identity a change is about (an identity, its authenticator, its exception), for its timeline;
      // likewise a service's.
      identityId: entityType === 'identities' ? entity.id : (entity.identityId ?? null),
      serviceId: entityType === 'services' ? entity.id : null,
      details: {
        entityType,
        entityId: entity.id,
        before: redacted(before),
        after: redacted(after),
      },
    },
    ctx.clock.now(),
  );
}
