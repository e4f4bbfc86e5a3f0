import type { Api } from './typed-app.js';
import { randomUUID } from 'node:crypto';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Entity } from '../model.js';
import type { ControllerContext } from '../platform/context.js';
import type { EntityRepository } from '../store/repository.js';
import { notFound } from '../api-error.js';
import { created, detail, empty, list } from './envelope.js';
import { parseListQuery } from './list-query.js';
import { recordAdminChange } from '../audit/admin-changes.js';
import {
  CreateEnvelope,
  DeleteQuerystring,
  EmptyEnvelope,
  IdParams,
  ListQuerystring,
  detailEnvelope,
  errorResponses,
  listEnvelope,
} from '../../src/api/resources/envelopes.js';

export type WriteMode = 'create' | 'update' | 'patch';

/**
 * One management collection with OpenZiti's six operations (list, detail, create, PUT, PATCH, DELETE),
 * envelopes and status codes. A resource says how to turn a body into an entity and how to show one; the
 * shape of the HTTP exchange lives here once. Where a collection has a service (identities, the catalogue),
 * `build` reads the body into the service's draft and the service checks it, and the hooks below are the
 * service's: the rules and the events stay out of the routes.
 */
export interface CrudResource<T extends Entity> {
  collection: string;
  tag: string;
  repo: EntityRepository<T>;
  /** Write bodies are objects, so a handler's body is a `Record<string, unknown>` without a cast. */
  schemas: { create: TObject; update: TObject; patch: TObject; detail: TSchema };
  /**
   * Validates the body (throwing `validationError`) and returns the entity to store. The body is the create,
   * PUT or PATCH schema's, depending on `mode`, so it arrives as a plain object (fields read with `pick`).
   * `request`: for a resource that records who wrote it.
   */
  build(
    body: Record<string, unknown>,
    mode: WriteMode,
    existing: T | undefined,
    id: string,
    now: Date,
    request: FastifyRequest,
  ): T | Promise<T>;
  /**
   * Loads what `toWire` needs from the store for these entities (names of referenced entities, related
   * rows), a few reads for a whole page rather than some per row; `toWire` then stays synchronous.
   */
  prepare?(entities: T[]): Promise<void>;
  toWire(entity: T): Record<string, unknown>;
  /** Runs before a delete, in its transaction; may throw (e.g. 409 for a referenced entity). */
  beforeDelete?(entity: T, options: DeleteOptions): void | Promise<void>;
  /** Runs after any write has been stored, in its transaction (events it emits are published after commit). */
  afterWrite?(entity: T, op: WriteMode | 'delete', request: FastifyRequest): void | Promise<void>;
  /** What a create answers beside `id` and `_links` (e.g. a one-time token, shown only then), with its schema. */
  created?: { schema: TSchema; extra(entity: T): Record<string, unknown> };
}

/** `DELETE …?cascade=true`: also remove what would otherwise refuse the delete (references to it). */
export interface DeleteOptions {
  cascade: boolean;
}

export function registerCrud<T extends Entity>(app: Api, ctx: ControllerContext, r: CrudResource<T>): void {
  const path = `/${r.collection}`;
  const tags = [r.tag];
  const load = async (id: string) => {
    const entity = await r.repo.get(id);
    if (!entity) throw notFound(`${r.collection}/${id}`);
    return entity;
  };

  app.get(
    path,
    {
      schema: {
        tags,
        querystring: ListQuerystring,
        response: { 200: listEnvelope(r.schemas.detail), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const query = parseListQuery(request.query, { fullGrammar: true });
      if (query.id !== undefined) {
        const one = await r.repo.get(query.id);
        const items = one && query.offset === 0 ? [one] : [];
        await r.prepare?.(items);
        return list(
          items.map((e) => r.toWire(e)),
          { limit: query.limit, offset: query.offset, totalCount: one ? 1 : 0 },
        );
      }
      const page = await r.repo.list(query);
      await r.prepare?.(page.items);
      return list(
        page.items.map((e) => r.toWire(e)),
        {
          limit: page.limit ?? query.limit,
          offset: page.offset ?? query.offset,
          totalCount: page.totalCount,
        },
      );
    },
  );

  app.get(
    `${path}/:id`,
    {
      schema: {
        tags,
        params: IdParams,
        response: { 200: detailEnvelope(r.schemas.detail), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const entity = await load(request.params.id);
      await r.prepare?.([entity]);
      return detail(r.toWire(entity));
    },
  );

  app.post(
    path,
    {
      schema: {
        tags,
        body: r.schemas.create,
        response: { 201: r.created?.schema ?? CreateEnvelope, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const now = ctx.clock.now();
      const entity = await r.build(request.body, 'create', undefined, randomUUID(), now, request);
      await ctx.store.transaction(async () => {
        await r.repo.create(entity);
        await r.afterWrite?.(entity, 'create', request);
        await recordAdminChange(ctx, request, r.collection, 'create', undefined, entity);
      });
      const answer = created(r.collection, entity.id);
      return reply
        .status(201)
        .send(r.created ? { ...answer, data: { ...answer.data, ...r.created.extra(entity) } } : answer);
    },
  );

  for (const mode of ['update', 'patch'] as const) {
    const method = mode === 'update' ? 'put' : 'patch';
    app[method](
      `${path}/:id`,
      {
        schema: {
          tags,
          params: IdParams,
          body: mode === 'update' ? r.schemas.update : r.schemas.patch,
          response: { 200: EmptyEnvelope, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const existing = await load(request.params.id);
        const entity = await r.build(request.body, mode, existing, existing.id, ctx.clock.now(), request);
        await ctx.store.transaction(async () => {
          if (!(await r.repo.update(entity))) throw notFound(`${r.collection}/${existing.id}`);
          await r.afterWrite?.(entity, mode, request);
          await recordAdminChange(ctx, request, r.collection, mode, existing, entity);
        });
        return empty();
      },
    );
  }

  app.delete(
    `${path}/:id`,
    {
      schema: {
        tags,
        params: IdParams,
        querystring: DeleteQuerystring,
        response: { 200: EmptyEnvelope, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const entity = await load(request.params.id);
      const cascade = request.query.cascade === true;
      await ctx.store.transaction(async () => {
        await r.beforeDelete?.(entity, { cascade });
        await r.repo.delete(entity.id);
        await r.afterWrite?.(entity, 'delete', request);
        await recordAdminChange(ctx, request, r.collection, 'delete', entity, undefined);
      });
      return empty();
    },
  );
}

/**
 * One field of a write, as OpenZiti reads it: a create or a PUT takes the body's value or else the default
 * (a PUT replaces the whole entity, so a field it leaves out is cleared); a PATCH changes only what it
 * names (`null` clears it to the default) and keeps the stored value of everything else.
 */
export function pick<T>(
  body: Record<string, unknown>,
  field: string,
  mode: WriteMode,
  current: T | undefined,
  fallback: T,
): T {
  if (mode === 'patch' && !(field in body)) return current ?? fallback;
  const value = body[field];
  return (value === undefined || value === null ? fallback : value) as T;
}
