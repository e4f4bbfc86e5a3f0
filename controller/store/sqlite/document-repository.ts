import type Database from 'better-sqlite3';
import type { Db } from '../database.js';
import type { Entity } from '../../model.js';
import { UniqueViolation, type SyncAttributedRepository, type ListQuery, type Page } from '../repository.js';
import { compileFilter, type FilterField } from '../filter/index.js';
import { MAX_LIMIT } from '../page.js';
import { documentFilterFields, type ExtraField } from './document-filter.js';
import { documentUniqueViolation } from '../unique-document-fields.js';

interface Row {
  id: string;
  name: string;
  doc: string;
  created_at: string;
  updated_at: string;
}

/** Revives the ISO strings that JSON turned dates into, for the fields named. */
export type DocReviver<T> = (doc: Record<string, unknown>) => Partial<T>;

/**
 * One entity kind stored as JSON documents in `table`. When `roleKind` is given, the entity's
 * `roleAttributes` are mirrored into the indexed `role_attributes` table on every write.
 */
export class DocumentRepository<
  T extends Entity & { roleAttributes?: string[] },
> implements SyncAttributedRepository<T> {
  private readonly stmts;
  /** SQL that varies with its inputs (IN lists, filters), prepared once per distinct text. */
  private readonly prepared = new Map<string, Database.Statement>();
  /**
   * Parsed entities by id, for the small catalogue kinds the access resolver reads on every request
   * (services, policies, checks), and a bounded number of identities (read by every authenticated
   * request). All writes go through this repository, which drops the entry it
   * touches; the store clears every cache when a transaction fails, so a rolled-back write cannot linger.
   */
  private readonly cache: Map<string, T> | null;
  /**
   * With the cache on, the whole table in name order once an unfiltered list has read all of it (edge
   * routers and their policies are listed whole for every session); dropped on every write like `cache`.
   */
  private everything: T[] | null = null;
  private readonly cacheLimit: number;
  /** what an OpenZiti filter on this list may name */
  private readonly filterFields: Record<string, FilterField>;

  constructor(
    protected readonly db: Db,
    private readonly table: string,
    private readonly roleKind: string | null,
    private readonly revive: DocReviver<T> = () => ({}),
    options: {
      /** true: keep every entity read; a number: at most that many, the least recently read go first */
      cache?: boolean | number;
      filterExtras?: readonly ExtraField[];
    } = {},
  ) {
    this.cache = options.cache ? new Map() : null;
    this.cacheLimit = typeof options.cache === 'number' ? options.cache : Infinity;
    this.filterFields = documentFilterFields(table, roleKind !== null, options.filterExtras);
    this.stmts = {
      get: db.prepare(`SELECT * FROM ${table} WHERE id = ?`),
      getByName: db.prepare(`SELECT * FROM ${table} WHERE name = ?`),
      count: db.prepare(`SELECT COUNT(*) AS n FROM ${table}`),
      insert: db.prepare(
        `INSERT INTO ${table} (id, name, doc, created_at, updated_at) VALUES (@id, @name, @doc, @created_at, @updated_at)`,
      ),
      update: db.prepare(
        `UPDATE ${table} SET name = @name, doc = @doc, updated_at = @updated_at WHERE id = @id`,
      ),
      delete: db.prepare(`DELETE FROM ${table} WHERE id = ?`),
      clearAttributes: db.prepare(`DELETE FROM role_attributes WHERE kind = ? AND entity_id = ?`),
      addAttribute: db.prepare(
        `INSERT OR IGNORE INTO role_attributes (kind, entity_id, attribute) VALUES (?, ?, ?)`,
      ),
      attributes: db.prepare(
        `SELECT DISTINCT attribute FROM role_attributes WHERE kind = ? ORDER BY attribute`,
      ),
    };
  }

  list(query: ListQuery): Page<T> {
    if (query.filter !== undefined) return this.listFiltered(query, query.filter);
    const unfiltered = query.name === undefined && query.nameContains === undefined;
    if (unfiltered && this.everything) {
      // A copy: callers may sort what they get.
      const items = this.everything.slice(query.offset, query.offset + query.limit);
      return { items, totalCount: this.everything.length };
    }
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.name !== undefined) {
      where.push('name = ?');
      params.push(query.name);
    }
    if (query.nameContains !== undefined) {
      where.push(`instr(lower(name), lower(?)) > 0`);
      params.push(query.nameContains);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.sql(`SELECT COUNT(*) AS n FROM ${this.table} ${clause}`).get(...params) as {
      n: number;
    };
    const rows = this.sql(`SELECT * FROM ${this.table} ${clause} ORDER BY name LIMIT ? OFFSET ?`).all(
      ...params,
      query.limit,
      query.offset,
    ) as Row[];
    const items = rows.map((r) => this.fromRow(r));
    if (
      this.cache &&
      this.cacheLimit === Infinity &&
      unfiltered &&
      query.offset === 0 &&
      items.length === total.n
    )
      this.everything = items.slice();
    return { items, totalCount: total.n };
  }

  /** A list by an OpenZiti filter: its predicate, sort and paging (within the API's limit) compiled to SQL. */
  private listFiltered(query: ListQuery, filter: string): Page<T> {
    const compiled = compileFilter(filter, this.filterFields);
    const clause = compiled.where ? `WHERE ${compiled.where}` : '';
    const limit = Math.min(compiled.limit ?? query.limit, MAX_LIMIT);
    const offset = compiled.offset ?? query.offset;
    const total = this.sql(`SELECT COUNT(*) AS n FROM ${this.table} ${clause}`).get(...compiled.params) as {
      n: number;
    };
    // Ties break by id in the direction of the last sort term, so one index on (field, id) serves both ways.
    const tieBreak = /\bDESC$/i.test(compiled.orderBy) ? 'DESC' : 'ASC';
    const order = compiled.orderBy
      ? `${compiled.orderBy}, ${this.table}.id ${tieBreak}`
      : `${this.table}.name`;
    const rows = this.sql(`SELECT * FROM ${this.table} ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`).all(
      ...compiled.params,
      limit,
      offset,
    ) as Row[];
    return { items: rows.map((r) => this.fromRow(r)), totalCount: total.n, limit, offset };
  }

  get(id: string): T | undefined {
    const cached = this.cache?.get(id);
    if (cached) {
      if (this.cacheLimit !== Infinity) {
        // Most recently read last, so a bounded cache evicts the entities read the longest ago.
        this.cache!.delete(id);
        this.cache!.set(id, cached);
      }
      return cached;
    }
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && this.fromRow(row);
  }

  getByName(name: string): T | undefined {
    const row = this.stmts.getByName.get(name) as Row | undefined;
    return row && this.fromRow(row);
  }

  getByIdOrName(idOrName: string): T | undefined {
    return this.get(idOrName) ?? this.getByName(idOrName);
  }

  getMany(ids: readonly string[]): T[] {
    const out: T[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const cached = this.cache?.get(id);
      if (cached) out.push(cached);
      else missing.push(id);
    }
    // Chunked to stay under SQLite's bound-parameter limit.
    for (let i = 0; i < missing.length; i += 500) {
      const chunk = missing.slice(i, i + 500);
      const rows = this.sql(`SELECT * FROM ${this.table} WHERE id IN (${placeholders(chunk.length)})`).all(
        ...chunk,
      ) as Row[];
      out.push(...rows.map((r) => this.fromRow(r)));
    }
    return out;
  }

  count(): number {
    return (this.stmts.count.get() as { n: number }).n;
  }

  create(entity: T): void {
    this.cache?.delete(entity.id);
    this.everything = null;
    this.db.transaction(() => {
      const existing = this.stmts.getByName.get(entity.name);
      if (existing) throw new UniqueViolation('name', entity.name);
      this.write(this.stmts.insert, entity);
      this.syncAttributes(entity);
    })();
  }

  update(entity: T): boolean {
    this.cache?.delete(entity.id);
    this.everything = null;
    return this.db.transaction(() => {
      const other = this.stmts.getByName.get(entity.name) as Row | undefined;
      if (other && other.id !== entity.id) throw new UniqueViolation('name', entity.name);
      const changed = this.write(this.stmts.update, entity) > 0;
      if (changed) this.syncAttributes(entity);
      return changed;
    })();
  }

  delete(id: string): boolean {
    this.cache?.delete(id);
    this.everything = null;
    return this.db.transaction(() => {
      if (this.roleKind) this.stmts.clearAttributes.run(this.roleKind, id);
      return this.stmts.delete.run(id).changes > 0;
    })();
  }

  idsWithAnyAttribute(attributes: readonly string[]): string[] {
    if (!this.roleKind || attributes.length === 0) return [];
    const rows = this.sql(
      `SELECT DISTINCT entity_id FROM role_attributes WHERE kind = ? AND attribute IN (${placeholders(attributes.length)})`,
    ).all(this.roleKind, ...attributes) as { entity_id: string }[];
    return rows.map((r) => r.entity_id);
  }

  attributes(): string[] {
    if (!this.roleKind) return [];
    return (this.stmts.attributes.all(this.roleKind) as { attribute: string }[]).map((r) => r.attribute);
  }

  /** Forgets every cached entity (after a failed transaction). */
  clearCache(): void {
    this.cache?.clear();
    this.everything = null;
  }

  protected sql(text: string): Database.Statement {
    let statement = this.prepared.get(text);
    if (!statement) {
      // Bounded: IN lists of many lengths must not grow the map without end.
      if (this.prepared.size > 256) this.prepared.clear();
      statement = this.db.prepare(text);
      this.prepared.set(text, statement);
    }
    return statement;
  }

  /** Runs an insert or update of the entity; a unique document field it would duplicate is a UniqueViolation. */
  private write(statement: Database.Statement, entity: T): number {
    try {
      return statement.run(this.toRow(entity)).changes;
    } catch (err) {
      throw documentUniqueViolation(err, entity) ?? err;
    }
  }

  private syncAttributes(entity: T): void {
    if (!this.roleKind) return;
    this.stmts.clearAttributes.run(this.roleKind, entity.id);
    for (const attribute of entity.roleAttributes ?? [])
      this.stmts.addAttribute.run(this.roleKind, entity.id, attribute);
  }

  protected toRow(entity: T): Record<string, unknown> {
    const { id, name, createdAt, updatedAt, ...rest } = entity;
    return {
      id,
      name,
      doc: JSON.stringify(rest),
      created_at: createdAt.toISOString(),
      updated_at: updatedAt.toISOString(),
    };
  }

  protected fromRow(row: Row): T {
    const doc = JSON.parse(row.doc) as Record<string, unknown>;
    const entity = {
      ...doc,
      ...this.revive(doc),
      id: row.id,
      name: row.name,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    } as unknown as T;
    if (this.cache) {
      this.cache.delete(row.id);
      if (this.cache.size >= this.cacheLimit) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(row.id, entity);
    }
    return entity;
  }
}

export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(',');
