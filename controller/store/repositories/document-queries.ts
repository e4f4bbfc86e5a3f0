/**
 * One entity kind stored as JSON documents in its table, one code for both databases (store/sql/statement.ts):
 * id, name and the two times are columns; everything else of the entity is the document, so an entity read
 * back equals the one written (after the kind's `revive`). When the kind names a `roleKind`, the entity's
 * `roleAttributes` are mirrored into the indexed `role_attributes` table inside the write's transaction.
 *
 * Several controllers may share a PostgreSQL database, so the unique key on the name decides, not a read
 * before the write: a create inserts with ON CONFLICT (name) DO NOTHING (a racing insert of the same name is
 * waited for, not an error that would abort an open transaction), an update's refusal by the key becomes the
 * same UniqueViolation('name').
 *
 * With a `DocumentCache` (document-cache.ts) every entity read is kept and reads by id (and the whole list,
 * unbounded) answer from memory without a statement, whenever the cache's gate allows; every write forgets
 * what it touches first.
 */
import type { Entity } from '../../model.js';
import type { EntityKind } from '../entity-kinds.js';
import { compileFilter, type FilterField } from '../filter/index.js';
import { MAX_LIMIT } from '../page.js';
import { UniqueViolation, type ListQuery, type Page } from '../repository.js';
import type { Dialect, UniqueKey } from '../sql/dialect.js';
import { pageWithTotal } from '../sql/paged.js';
import { atomic, one, rows, run, type Fragment, type Sql } from '../sql/statement.js';
import { documentUniqueViolation } from '../unique-document-fields.js';
import type { DocumentCache } from './document-cache.js';
import { DOCUMENT_SQL, documentFilterFields } from './document-filter.js';

export interface DocumentRow {
  id: string;
  name: string;
  /** text on SQLite, parsed jsonb on PostgreSQL: read through `Dialect.document` */
  doc: unknown;
  created_at: string;
  updated_at: string;
}

export class DocumentQueries<T extends Entity & { roleAttributes?: string[] }> {
  protected readonly table: string;
  /** the columns of an entity row, table-qualified (list queries repeat the table in a subquery) */
  protected readonly columns: string;
  private readonly roleKind: string | null;
  /** what an OpenZiti filter on this list may name */
  private readonly filterFields: Record<string, FilterField>;
  /** the unique key on the name, as each database names it (an inline UNIQUE in the first migration) */
  private readonly nameKey: UniqueKey;

  constructor(
    protected readonly dialect: Dialect,
    private readonly kind: EntityKind<T>,
    protected readonly cache?: DocumentCache<T>,
  ) {
    const table = (this.table = kind.table);
    this.roleKind = kind.roleKind;
    this.columns = `${table}.id, ${table}.name, ${table}.doc, ${table}.created_at, ${table}.updated_at`;
    this.filterFields = documentFilterFields(dialect.name, table, kind.roleKind !== null, kind.filterExtras);
    this.nameKey = { index: `${table}_name_key`, columns: `${table}.name` };
  }

  *list(query: ListQuery): Sql<Page<T>> {
    if (query.filter !== undefined) return yield* this.listFiltered(query, query.filter);
    const whole = query.name === undefined && query.nameContains === undefined;
    const generation = this.cache?.gate.readable();
    const everything = whole && generation !== undefined ? this.cache!.everything : undefined;
    // A copy: callers may sort what they get.
    if (everything)
      return {
        items: everything.slice(query.offset, query.offset + query.limit),
        totalCount: everything.length,
      };
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.name !== undefined) {
      where.push(`${this.table}.name = ?`);
      params.push(query.name);
    }
    if (query.nameContains !== undefined) {
      where.push(DOCUMENT_SQL[this.dialect.name].nameContains(this.table));
      params.push(query.nameContains);
    }
    const clause = { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', params };
    const page = yield* this.page(clause, `${this.table}.name`, query.limit, query.offset, generation);
    if (whole && query.offset === 0 && page.items.length === page.totalCount && this.keeps(generation))
      this.cache!.keepEverything(page.items);
    return page;
  }

  /** A list by an OpenZiti filter: its predicate, sort and paging (within the API's limit) compiled to SQL. */
  private *listFiltered(query: ListQuery, filter: string): Sql<Page<T>> {
    const compiled = compileFilter(filter, this.filterFields, this.dialect.name);
    const limit = Math.min(compiled.limit ?? query.limit, MAX_LIMIT);
    const offset = compiled.offset ?? query.offset;
    // Ties break by id in the direction of the last sort term, so one index on (field, id) serves both ways
    // (the identity sort indexes); on PostgreSQL a nullable term ends NULLS FIRST / NULLS LAST.
    const tieBreak = /\bDESC( NULLS (FIRST|LAST))?$/i.test(compiled.orderBy) ? 'DESC' : 'ASC';
    const order = compiled.orderBy
      ? `${compiled.orderBy}, ${this.table}.id ${tieBreak}`
      : `${this.table}.name`;
    const clause = { sql: compiled.where ? `WHERE ${compiled.where}` : '', params: compiled.params };
    const page = yield* this.page(clause, order, limit, offset, this.cache?.gate.readable());
    return { ...page, limit, offset };
  }

  private *page(
    where: Fragment,
    order: string,
    limit: number,
    offset: number,
    generation: number | undefined,
  ): Sql<{ items: T[]; totalCount: number }> {
    const page = yield* pageWithTotal<DocumentRow>(this.table, this.columns, where, order, limit, offset);
    const keep = this.keeps(generation);
    return { items: page.rows.map((r) => this.decode(r, keep)), totalCount: page.total };
  }

  *get(id: string): Sql<T | undefined> {
    const generation = this.cache?.gate.readable();
    if (generation !== undefined) {
      const cached = this.cache!.get(id);
      if (cached) return cached;
    }
    const row = yield* one<DocumentRow>(`SELECT ${this.columns} FROM ${this.table} WHERE id = ?`, [id]);
    return row && this.decode(row, this.keeps(generation));
  }

  *getByName(name: string): Sql<T | undefined> {
    const generation = this.cache?.gate.readable();
    const row = yield* one<DocumentRow>(`SELECT ${this.columns} FROM ${this.table} WHERE name = ?`, [name]);
    return row && this.decode(row, this.keeps(generation));
  }

  /** the entity with this id, else the one with this name: from memory by id, else one read */
  *getByIdOrName(idOrName: string): Sql<T | undefined> {
    const generation = this.cache?.gate.readable();
    if (generation !== undefined) {
      const cached = this.cache!.get(idOrName);
      if (cached) return cached;
    }
    const row = yield* one<DocumentRow>(
      `SELECT ${this.columns} FROM ${this.table} WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1`,
      [idOrName, idOrName, idOrName],
    );
    return row && this.decode(row, this.keeps(generation));
  }

  /**
   * The entities with these ids, in the order asked (an id asked twice answered once, a missing one skipped):
   * from memory when all are there, else those that are not in one read.
   */
  *getMany(ids: readonly string[]): Sql<T[]> {
    if (ids.length === 0) return [];
    const generation = this.cache?.gate.readable();
    if (generation !== undefined) {
      const cached = this.allCached(ids);
      if (cached) return cached;
    }
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const id of ids) {
      const cached = generation !== undefined ? this.cache!.peek(id) : undefined;
      if (cached) found.set(id, cached);
      else missing.push(id);
    }
    const asked = this.dialect.oneOf(`${this.table}.id`, missing);
    const read = yield* rows<DocumentRow>(
      `SELECT ${this.columns} FROM ${this.table} WHERE ${asked.sql}`,
      asked.params,
    );
    const keep = this.keeps(generation);
    for (const row of read) found.set(row.id, this.decode(row, keep));
    const out: T[] = [];
    for (const id of ids) {
      const entity = found.get(id);
      if (entity) {
        out.push(entity);
        found.delete(id);
      }
    }
    return out;
  }

  /** `getMany`'s answer when every id is in memory (the hot path: no map, one pass), else undefined */
  private allCached(ids: readonly string[]): T[] | undefined {
    const out: T[] = [];
    for (const id of ids) {
      const cached = this.cache!.peek(id);
      if (!cached) return undefined;
      out.push(cached);
    }
    return hasDuplicates(ids) ? [...new Set(out)] : out;
  }

  *count(): Sql<number> {
    const everything = this.cache?.gate.readable() !== undefined ? this.cache!.everything : undefined;
    if (everything) return everything.length;
    const row = yield* one<{ n: number }>(`SELECT CAST(count(*) AS INTEGER) AS n FROM ${this.table}`);
    return Number(row!.n);
  }

  /** Throws UniqueViolation('name') when the name is taken; a taken id stays a database error. */
  *create(entity: T): Sql<void> {
    this.cache?.forget(entity.id);
    const row = this.toRow(entity);
    try {
      // atomic: the entity and its mirrored rows, all or nothing (inside a transaction, a savepoint)
      yield* atomic(() => this.insert(entity, row));
    } catch (err) {
      throw documentUniqueViolation(err, entity) ?? err;
    }
  }

  private *insert(entity: T, row: unknown[]): Sql<void> {
    const inserted = yield* one(
      `INSERT INTO ${this.table} (id, name, doc, created_at, updated_at)
       VALUES (?, ?, ${this.dialect.documentParam}, ?, ?) ON CONFLICT (name) DO NOTHING RETURNING id`,
      row,
    );
    if (!inserted) throw new UniqueViolation('name', entity.name);
    yield* this.mirror(entity);
  }

  /** replaces the stored entity; false when it does not exist (a UniqueViolation when its name is taken) */
  *update(entity: T): Sql<boolean> {
    this.cache?.forget(entity.id);
    const [id, name, doc, , updatedAt] = this.toRow(entity);
    let changed: boolean;
    try {
      changed = yield* atomic(() => this.replace(entity, [name, doc, updatedAt, id]));
    } catch (err) {
      if (this.dialect.violated(err, [this.nameKey])) throw new UniqueViolation('name', entity.name);
      throw documentUniqueViolation(err, entity) ?? err;
    }
    if (changed) return true;
    // A missing entity given a taken name is a UniqueViolation, not false (as a check before the write answers).
    const other = yield* one(`SELECT 1 AS taken FROM ${this.table} WHERE name = ? AND id <> ?`, [name, id]);
    if (other) throw new UniqueViolation('name', entity.name);
    return false;
  }

  private *replace(entity: T, params: unknown[]): Sql<boolean> {
    const updated = yield* run(
      `UPDATE ${this.table} SET name = ?, doc = ${this.dialect.documentParam}, updated_at = ? WHERE id = ?`,
      params,
    );
    if (updated > 0) yield* this.mirror(entity);
    return updated > 0;
  }

  *delete(id: string): Sql<boolean> {
    this.cache?.forget(id);
    return yield* atomic(() => this.remove(id));
  }

  private *remove(id: string): Sql<boolean> {
    yield* this.unmirror(id);
    return (yield* run(`DELETE FROM ${this.table} WHERE id = ?`, [id])) > 0;
  }

  /** ids of entities carrying any of these attributes (without `#`), in id order */
  *idsWithAnyAttribute(attributes: readonly string[]): Sql<string[]> {
    if (!this.roleKind || attributes.length === 0) return [];
    const asked = this.dialect.oneOf('attribute', attributes);
    const found = yield* rows<{ entity_id: string }>(
      `SELECT DISTINCT entity_id FROM role_attributes WHERE kind = ? AND ${asked.sql} ORDER BY entity_id`,
      [this.roleKind, ...asked.params],
    );
    return found.map((r) => r.entity_id);
  }

  *attributes(): Sql<string[]> {
    if (!this.roleKind) return [];
    const found = yield* rows<{ attribute: string }>(
      `SELECT DISTINCT attribute FROM role_attributes WHERE kind = ? ORDER BY attribute`,
      [this.roleKind],
    );
    return found.map((r) => r.attribute);
  }

  /** Forgets every entity kept in memory (SQLite: after a failed transaction). */
  clearCache(): void {
    this.cache?.forget(undefined);
  }

  /**
   * Writes what is derived from the entity into its index tables (here its role attributes), inside the
   * transaction of the write. Subclasses add their own.
   */
  protected *mirror(entity: T): Sql<void> {
    if (!this.roleKind) return;
    yield* run(`DELETE FROM role_attributes WHERE kind = ? AND entity_id = ?`, [this.roleKind, entity.id]);
    const attributes = entity.roleAttributes ?? [];
    if (attributes.length === 0) return;
    const given = this.dialect.relation(
      'given',
      ['attribute'],
      attributes.map((a) => [a]),
    );
    // WHERE true: SQLite would read ON CONFLICT as a join's ON otherwise
    yield* run(
      `INSERT INTO role_attributes (kind, entity_id, attribute)
       SELECT ?, ?, given.attribute FROM ${given.sql} WHERE true ON CONFLICT DO NOTHING`,
      [this.roleKind, entity.id, ...given.params],
    );
  }

  /** Removes what `mirror` wrote, inside the transaction of the delete. */
  protected *unmirror(id: string): Sql<void> {
    if (this.roleKind)
      yield* run(`DELETE FROM role_attributes WHERE kind = ? AND entity_id = ?`, [this.roleKind, id]);
  }

  /** Whether what a read that started at `generation` found may be kept. */
  protected keeps(generation: number | undefined): boolean {
    return this.cache !== undefined && this.cache.gate.mayKeep(generation);
  }

  /** id, name, document (the entity without its columns' fields, as text), created and updated times */
  private toRow(entity: T): unknown[] {
    const { id, name, createdAt, updatedAt, ...rest } = entity;
    return [id, name, JSON.stringify(rest), createdAt.toISOString(), updatedAt.toISOString()];
  }

  protected decode(row: DocumentRow, keep: boolean): T {
    const doc = this.dialect.document(row.doc);
    // Onto the document just parsed, not a spread into a new literal (src/common/with-fields.ts says why).
    const entity = Object.assign(doc, this.kind.revive?.(doc), {
      id: row.id,
      name: row.name,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    }) as unknown as T;
    if (keep) this.cache!.keep(entity);
    return entity;
  }
}

/** Whether a list names an id twice: by comparison for the short lists of the hot paths, else by a set. */
function hasDuplicates(ids: readonly string[]): boolean {
  if (ids.length > 32) return new Set(ids).size !== ids.length;
  for (let i = 1; i < ids.length; i++) for (let j = 0; j < i; j++) if (ids[i] === ids[j]) return true;
  return false;
}
