/**
 * A preview body read into the change it asks for, held in memory: the entity it would store (checked exactly
 * as the create or PATCH would check it, by the same builders) or its deletion (refused with the same 409 a
 * DELETE without `cascade` meets), and the catalogue with that change made. Nothing is written: the builders
 * only read, and a delete's reference check runs only where it cannot cascade.
 */
import { randomUUID } from 'node:crypto';
import type { TObject } from '@sinclair/typebox';
import type { Entity, ServicePolicy } from '../../model.js';
import type { PostureCheck } from '../../posture-model.js';
import type { ControllerContext } from '../../platform/context.js';
import type { EntityRepository } from '../../store/repository.js';
import { UniqueViolation } from '../../store/repository.js';
import { validationError } from '../../api-error.js';
import { assertBody } from '../../http/validation.js';
import type { DeleteOptions, WriteMode } from '../../http/crud.js';
import { catalogueOf } from '../../catalogue/catalogue.js';
import type { CatalogueService } from '../../catalogue/catalogue-service.js';
import { postureCheckBuilder } from '../../catalogue/posture-check-routes.js';
import { servicePolicyBuilder } from '../../catalogue/service-policy-routes.js';
import { PostureCheckCreate, PostureCheckPatch } from '../../../src/api/resources/posture-checks.js';
import { ServicePolicyCreate, ServicePolicyPatch } from '../../../src/api/resources/policies.js';
import { AccessResolver } from '../decisions/access-resolver.js';
import type { CatalogueChange } from './impact-preview.js';

/** How one collection's writes are read and checked (what its CRUD routes are handed). */
interface Writes<T extends Entity & { name: string }> {
  what: string;
  repo: EntityRepository<T>;
  schemas: { create: TObject; patch: TObject };
  build(
    body: Record<string, unknown>,
    mode: WriteMode,
    existing: T | undefined,
    id: string,
    now: Date,
  ): T | Promise<T>;
  beforeDelete?(entity: T, options: DeleteOptions): Promise<void>;
}

/** The entity a preview body names and what it would become (null: deleted). */
interface Proposed<T> {
  id: string;
  existing: T | undefined;
  next: T | null;
}

async function proposed<T extends Entity & { name: string }>(
  writes: Writes<T>,
  body: Record<string, unknown>,
  now: Date,
): Promise<Proposed<T>> {
  const { id, delete: remove, cascade, ...fields } = body as Record<string, unknown> & { id?: string };
  const stored = async (key: string) => {
    const entity = await writes.repo.get(key);
    if (!entity)
      throw validationError([{ field: 'id', reason: `no ${writes.what} has this id`, value: key }]);
    return entity;
  };
  if (remove === true) {
    const extra = Object.keys(fields)[0];
    if (extra !== undefined)
      throw validationError([
        { field: extra, reason: 'is not a field of a delete preview (id, delete, cascade)' },
      ]);
    if (id === undefined) throw validationError([{ field: 'id', reason: 'is required with delete' }]);
    const existing = await stored(id);
    // Without cascade, a delete that policies refuse (409) is refused here too; with it, nothing is checked.
    if (cascade !== true) await writes.beforeDelete?.(existing, { cascade: false });
    return { id, existing, next: null };
  }
  if (cascade !== undefined)
    throw validationError([{ field: 'cascade', reason: 'is only taken with delete' }]);
  const existing = id === undefined ? undefined : await stored(id);
  assertBody(existing ? writes.schemas.patch : writes.schemas.create, fields);
  const next = await writes.build(
    fields,
    existing ? 'patch' : 'create',
    existing,
    existing?.id ?? randomUUID(),
    now,
  );
  const named = await writes.repo.getByName(next.name);
  // What the store's unique name would refuse on the write, answered the same way.
  if (named && named.id !== next.id) throw new UniqueViolation('name', next.name);
  return { id: next.id, existing, next };
}

/** A posture check created, changed or deleted: every policy requiring it before or after may decide otherwise. */
export async function postureCheckChange(
  ctx: ControllerContext,
  catalogue: CatalogueService,
  body: Record<string, unknown>,
  now: Date,
): Promise<CatalogueChange> {
  const { id, existing, next } = await proposed<PostureCheck>(
    {
      what: 'posture check',
      repo: ctx.store.postureChecks as EntityRepository<PostureCheck>,
      schemas: { create: PostureCheckCreate, patch: PostureCheckPatch },
      build: postureCheckBuilder(catalogue),
      beforeDelete: (check, options) => catalogue.beforePostureCheckDelete(check, options),
    },
    body,
    now,
  );
  const before = await catalogueOf(ctx.store);
  const after = before.withPostureCheck(id, next);
  const policyIds = new Set<string>();
  const was = before.postureChecks.byId.get(id) ?? existing;
  if (was) for (const p of new AccessResolver(before).policiesRequiring(was)) policyIds.add(p.id);
  if (next) for (const p of new AccessResolver(after).policiesRequiring(next)) policyIds.add(p.id);
  return { before, after, policyIds, ...(next && !existing ? { newCheckId: id } : {}) };
}

/** A service policy created, changed or deleted: only its own decisions may change. */
export async function servicePolicyChange(
  ctx: ControllerContext,
  catalogue: CatalogueService,
  body: Record<string, unknown>,
  now: Date,
): Promise<CatalogueChange> {
  const { id, next } = await proposed<ServicePolicy>(
    {
      what: 'service policy',
      repo: ctx.store.servicePolicies,
      schemas: { create: ServicePolicyCreate, patch: ServicePolicyPatch },
      build: servicePolicyBuilder(catalogue),
    },
    body,
    now,
  );
  const before = await catalogueOf(ctx.store);
  return { before, after: before.withPolicy(id, next), policyIds: new Set([id]) };
}
