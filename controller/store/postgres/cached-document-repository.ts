/**
 * A document kind on PostgreSQL with SQLite's entity cache (store/sqlite/document-repository.ts): entities
 * read by id are kept, and with an unbounded cache so is the whole table in name order once an unfiltered
 * list has read all of it (edge routers and their policies are listed whole for every session). Kept correct
 * across the instances sharing the database by the rules of cross-instance-caches.ts: its writes announce the
 * ids they change, other instances' announcements drop them, nothing is answered from memory inside a
 * transaction or while the announcements cannot be heard.
 *
 * Entities are handed out as cached, as SQLite's are: callers do not change what they get.
 */
import type { Entity } from '../../model.js';
import type { ListQuery, Page } from '../repository.js';
import type { DocReviver } from '../sqlite/document-repository.js';
import type { ExtraField } from '../sqlite/document-filter.js';
import type { CrossInstanceCaches } from './cross-instance-caches.js';
import { PgDocumentRepository } from './document-repository.js';
import type { PgDatabase } from './pg-database.js';

export interface DocumentCacheOptions {
  caches: CrossInstanceCaches;
  /** at most this many entities (the least recently read go first); Infinity also keeps the whole list */
  limit: number;
  filterExtras?: readonly ExtraField[];
}

export class PgCachedDocumentRepository<
  T extends Entity & { roleAttributes?: string[] },
> extends PgDocumentRepository<T> {
  private readonly byId = new Map<string, Awaited<T>>();
  /** the whole table in name order, once an unfiltered list read all of it (unbounded caches only) */
  private everything: Awaited<T>[] | undefined;
  private readonly caches: CrossInstanceCaches;
  private readonly limit: number;

  constructor(
    db: PgDatabase,
    table: string,
    roleKind: string | null,
    revive: DocReviver<T> | undefined,
    options: DocumentCacheOptions,
  ) {
    super(db, table, roleKind, revive, { filterExtras: options.filterExtras });
    this.caches = options.caches;
    this.limit = options.limit;
    this.caches.register(table, (id) => {
      if (id === undefined) this.byId.clear();
      else this.byId.delete(id);
      this.everything = undefined;
    });
  }

  override async get(id: string): Promise<Awaited<T> | undefined> {
    const generation = this.caches.readable(this.table);
    if (generation !== undefined) {
      const cached = this.byId.get(id);
      if (cached) {
        if (this.limit !== Infinity) {
          // Most recently read last, so eviction takes the entities read the longest ago.
          this.byId.delete(id);
          this.byId.set(id, cached);
        }
        return cached;
      }
    }
    const entity = await super.get(id);
    if (entity && this.caches.mayKeep(this.table, generation)) this.remember(entity);
    return entity;
  }

  override async getMany(ids: readonly string[]): Promise<Awaited<T>[]> {
    const generation = this.caches.readable(this.table);
    if (generation !== undefined && ids.every((id) => this.byId.has(id)))
      return [...new Set(ids)].map((id) => this.byId.get(id)!);
    const entities = await super.getMany(ids);
    if (this.caches.mayKeep(this.table, generation)) for (const e of entities) this.remember(e);
    return entities;
  }

  override async list(query: ListQuery): Promise<Page<Awaited<T>>> {
    const whole =
      this.limit === Infinity &&
      query.filter === undefined &&
      query.name === undefined &&
      query.nameContains === undefined;
    const generation = whole ? this.caches.readable(this.table) : undefined;
    if (generation !== undefined && this.everything) {
      // A copy: callers may sort what they get.
      const items = this.everything.slice(query.offset, query.offset + query.limit);
      return { items, totalCount: this.everything.length };
    }
    const page = await super.list(query);
    if (
      whole &&
      query.offset === 0 &&
      page.items.length === page.totalCount &&
      this.caches.mayKeep(this.table, generation)
    )
      this.everything = page.items.slice();
    return page;
  }

  override async count(): Promise<number> {
    if (this.caches.readable(this.table) !== undefined && this.everything) return this.everything.length;
    return super.count();
  }

  override async create(entity: T): Promise<void> {
    await super.create(entity);
    await this.caches.changed(this.table, [entity.id]);
  }

  override async update(entity: T): Promise<boolean> {
    const updated = await super.update(entity);
    if (updated) await this.caches.changed(this.table, [entity.id]);
    return updated;
  }

  override async delete(id: string): Promise<boolean> {
    const deleted = await super.delete(id);
    if (deleted) await this.caches.changed(this.table, [id]);
    return deleted;
  }

  private remember(entity: Awaited<T>): void {
    this.byId.delete(entity.id);
    if (this.byId.size >= this.limit) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(entity.id, entity);
  }
}
