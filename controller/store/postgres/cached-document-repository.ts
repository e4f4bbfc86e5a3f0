/**
 * A document kind on PostgreSQL kept in memory as on SQLite: the shared repository (repositories/
 * document-queries.ts) with its DocumentCache, whose gate is the cross-instance rules (cross-instance-caches.ts):
 * nothing answered from memory inside a transaction or while the announcements cannot be heard, a read that
 * raced a change not kept, other instances' announcements forget what they name, and this instance's writes
 * announce the ids they change.
 *
 * The announcing stays here, around the shared repository, rather than in it: it is PostgreSQL's alone, and
 * asynchronous work of its database (queued before COMMIT, forgotten again after it) that a repository step
 * has no statement for; SQLite needs none (one process owns the file).
 */
import type { Entity } from '../../model.js';
import { DocumentCache } from '../repositories/document-cache.js';
import type { DocumentQueries } from '../repositories/document-queries.js';
import { postgresFace, type AsyncFace } from '../sql/faces.js';
import type { CrossInstanceCaches } from './cross-instance-caches.js';
import type { PgDatabase } from './pg-database.js';

/**
 * `build`'s repository of the document kind in `table`, kept in memory (at most `limit` entities, the least
 * recently read going first; Infinity also keeps the whole list).
 */
export function pgCachedDocuments<
  T extends Entity & { roleAttributes?: string[] },
  Q extends DocumentQueries<T>,
>(
  db: PgDatabase,
  caches: CrossInstanceCaches,
  table: string,
  limit: number,
  build: (cache: DocumentCache<T>) => Q,
): AsyncFace<Q> {
  const cache = new DocumentCache<T>(limit, {
    readable: () => caches.readable(table),
    mayKeep: (generation) => caches.mayKeep(table, generation),
  });
  caches.register(table, (id) => cache.forget(id));
  const repository = postgresFace(build(cache), db);
  const writes = repository as unknown as Record<
    'create' | 'update' | 'delete',
    (arg: unknown) => Promise<unknown>
  >;
  const { create, update, delete: remove } = writes;
  writes.create = async (entity) => {
    await create(entity);
    await caches.changed(table, [(entity as T).id]);
  };
  writes.update = async (entity) => {
    const updated = await update(entity);
    if (updated) await caches.changed(table, [(entity as T).id]);
    return updated;
  };
  writes.delete = async (id) => {
    const deleted = await remove(id);
    if (deleted) await caches.changed(table, [id as string]);
    return deleted;
  };
  return repository;
}
