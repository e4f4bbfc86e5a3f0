/**
 * Administrative changes on the trail: every write through the management CRUD kit (http/crud.ts) records
 * who made it, from which address, to which entity, and the entity before and after with its secrets
 * redacted, in the write's own transaction.
 */
import type { FastifyRequest } from 'fastify';
import type { Entity } from '../model.js';
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

/** The administrator behind a request, as named then; null for an unauthenticated one. */
export const requestActor = (request: FastifyRequest): Actor | null =>
  request.auth ? { id: request.auth.identity.id, name: request.auth.identity.name } : null;

export async function recordAdminChange(
  ctx: ControllerContext,
  request: FastifyRequest,
  entityType: string,
  op: WriteMode | 'delete',
  before: Entity | undefined,
  after: Entity | undefined,
): Promise<void> {
  const entity = (after ?? before)!;
  await recordAudit(
    ctx.store,
    {
      type: TYPE_OF[op],
      actor: requestActor(request),
      address: request.ip,
      // The identity an identity change is about, for its timeline; likewise a service's.
      identityId: entityType === 'identities' ? entity.id : null,
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
