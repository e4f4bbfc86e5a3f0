/**
 * One entity kind stored as jsonb documents, in PostgreSQL: the same answers as SQLite's DocumentRepository
 * (store/sqlite/document-repository.ts). id, name and the two times are columns; everything else of the entity
 * is the document, so an entity read back equals the one written (after `revive`), as in SQLite.
 *
 * No cache: several controllers share the tables. Where SQLite checks the name before writing, here the unique
 * key decides (another controller may take the name between a check and the write); its violation becomes the
 * same UniqueViolation.
 */
import type { Entity } from '../../model.js';
import { compileFilter, type FilterField } from '../filter/index.js';
import { MAX_LIMIT } from '../page.js';
import { UniqueViolation, type AttributedRepository, type ListQuery, type Page } from '../repository.js';
import type { DocReviver } from '../sqlite/document-repository.js';
import type { ExtraField } from '../sqlite/document-filter.js';
import { documentFilterFields } from './document-filter.js';
import { documentUniqueViolation } from '../unique-document-fields.js';
import type { PgDatabase } from './pg-database.js';

export interface DocumentRow {
  id: string;
  name: string;
  /** node-postgres parses jsonb */
  doc: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** A page's row: the entity and the total of the whole list, counted in the same statement. */
type PageRow = DocumentRow & { total_count: number };

/** The columns of an entity row, table-qualified (list queries nest the table in a subquery). */
const columns = (table: string) =>
  `${table}.id, ${table}.name, ${table}.doc, ${table}.created_at, ${table}.updated_at`;

/** The unique key on the name, as PostgreSQL names an inline UNIQUE (migrations/001-initial.ts). */
const nameKey = (table: string) => `${table}_name_key`;

export class PgDocumentRepository<
  T extends Entity & { roleAttributes?: string[] },
> implements AttributedRepository<T> {
  /** what an OpenZiti filter on this list may name */
  private readonly filterFields: Record<string, FilterField>;
  protected readonly columns: string;

  constructor(
    protected readonly db: PgDatabase,
    protected readonly table: string,
    private readonly roleKind: string | null,
    private readonly revive: DocReviver<T> = () => ({}),
    options: { filterExtras?: readonly ExtraField[] } = {},
  ) {
    this.filterFields = documentFilterFields(table, roleKind !== null, options.filterExtras);
    this.columns = columns(table);
  }

  async list(query: ListQuery): Promise<Page<Awaited<T>>> {
    if (query.filter !== undefined) return this.listFiltered(query, query.filter);
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.name !== undefined) {
      where.push(`${this.table}.name = ?`);
      params.push(query.name);
    }
    if (query.nameContains !== undefined) {
      // COLLATE "C": lower() folds ASCII letters only, as SQLite's does, whatever the database's collation.
      where.push(`strpos(lower(${this.table}.name), lower(?::text COLLATE "C")) > 0`);
      params.push(query.nameContains);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    return this.page(clause, params, `${this.table}.name`, query.limit, query.offset);
  }

  /** A list by an OpenZiti filter: its predicate, sort and paging (within the API's limit) compiled to SQL. */
  private async listFiltered(query: ListQuery, filter: string): Promise<Page<Awaited<T>>> {
    const compiled = compileFilter(filter, this.filterFields, 'postgres');
    const clause = compiled.where ? `WHERE ${compiled.where}` : '';
    const limit = Math.min(compiled.limit ?? query.limit, MAX_LIMIT);
    const offset = compiled.offset ?? query.offset;
    // Ties break by id in the direction of the last sort term, so one index on (field, id) serves both ways
    // (the identity sort indexes); a nullable term ends NULLS FIRST / NULLS LAST here.
    const tieBreak = /\bDESC( NULLS (FIRST|LAST))?$/i.test(compiled.orderBy) ? 'DESC' : 'ASC';
    const order = compiled.orderBy
      ? `${compiled.orderBy}, ${this.table}.id ${tieBreak}`
      : `${this.table}.name`;
    const page = await this.page(clause, compiled.params, order, limit, offset);
    return { ...page, limit, offset };
  }

  /**
   * One page and the total in one statement, so both come from one snapshot (SQLite's two reads cannot be
   * interleaved with a write; two PostgreSQL statements can). The total rides on every row; a page without rows
   * (past the end, or nothing matched) has none to carry it, and is then counted on its own. Inside the count,
   * the clause's table-qualified names mean the count's own rows: it does not depend on the outer row and runs
   * once.
   */
  private async page(
    clause: string,
    params: readonly unknown[],
    order: string,
    limit: number,
    offset: number,
  ): Promise<{ items: Awaited<T>[]; totalCount: number }> {
    const count = `SELECT count(*)::int FROM ${this.table} ${clause}`;
    const rows = await this.db.rows<PageRow>(
      `SELECT ${this.columns}, (${count}) AS total_count FROM ${this.table} ${clause}
       ORDER BY ${order} LIMIT ? OFFSET ?`,
      [...params, ...params, limit, offset],
    );
    if (rows.length > 0) return { items: rows.map((r) => this.fromRow(r)), totalCount: rows[0]!.total_count };
    const total = await this.db.one<{ n: number }>(`SELECT (${count}) AS n`, params);
    return { items: [], totalCount: total?.n ?? 0 };
  }

  async get(id: string): Promise<Awaited<T> | undefined> {
    const row = await this.db.one<DocumentRow>(`SELECT ${this.columns} FROM ${this.table} WHERE id = ?`, [
      id,
    ]);
    return row && this.fromRow(row);
  }

  async getByName(name: string): Promise<Awaited<T> | undefined> {
    const row = await this.db.one<DocumentRow>(`SELECT ${this.columns} FROM ${this.table} WHERE name = ?`, [
      name,
    ]);
    return row && this.fromRow(row);
  }

  /** One read: the entity with this id, else the one with this name (SQLite asks in that order). */
  async getByIdOrName(idOrName: string): Promise<Awaited<T> | undefined> {
    const row = await this.db.one<DocumentRow>(
      `SELECT ${this.columns} FROM ${this.table} WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1`,
      [idOrName, idOrName, idOrName],
    );
    return row && this.fromRow(row);
  }

  /**
   * The entities with these ids, in the order asked (an id asked twice answered once, a missing one skipped).
   * SQLite answers in the order asked once the entities are in its cache, which every entity read is.
   */
  async getMany(ids: readonly string[]): Promise<Awaited<T>[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.rows<DocumentRow>(
      `SELECT ${this.columns} FROM ${this.table}
       JOIN (SELECT id, min(position) AS position FROM unnest(?::text[]) WITH ORDINALITY AS asked(id, position)
             GROUP BY id) asked ON asked.id = ${this.table}.id
       ORDER BY asked.position`,
      [ids],
    );
    return rows.map((r) => this.fromRow(r));
  }

  async count(): Promise<number> {
    return (await this.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table}`))!.n;
  }

  /** Throws UniqueViolation('name') when the name is taken; a taken id stays a database error, as in SQLite. */
  async create(entity: T): Promise<void> {
    const row = this.toRow(entity);
    await this.db.transaction(async () => {
      // ON CONFLICT (name): the name is checked first, as SQLite does, and a racing controller's insert of the
      // same name is waited for rather than reported as an error that would abort the transaction.
      const inserted = await this.db
        .one(
          `INSERT INTO ${this.table} (id, name, doc, created_at, updated_at) VALUES (?, ?, ?::jsonb, ?, ?)
         ON CONFLICT (name) DO NOTHING RETURNING id`,
          [row.id, row.name, row.doc, row.createdAt, row.updatedAt],
        )
        .catch((err: unknown) => {
          throw documentUniqueViolation(err, entity) ?? err;
        });
      if (!inserted) throw new UniqueViolation('name', entity.name);
      await this.mirror(entity);
    });
  }

  async update(entity: T): Promise<boolean> {
    const row = this.toRow(entity);
    let changed: boolean;
    try {
      changed = await this.db.transaction(async () => {
        const updated = await this.db.run(
          `UPDATE ${this.table} SET name = ?, doc = ?::jsonb, updated_at = ? WHERE id = ?`,
          [row.name, row.doc, row.updatedAt, row.id],
        );
        if (updated > 0) await this.mirror(entity);
        return updated > 0;
      });
    } catch (err) {
      const { code, constraint } = err as { code?: unknown; constraint?: unknown };
      if (code === '23505' && constraint === nameKey(this.table))
        throw new UniqueViolation('name', entity.name);
      throw documentUniqueViolation(err, entity) ?? err;
    }
    if (changed) return true;
    // SQLite checks the name before looking for the row: a missing entity given a taken name is a
    // UniqueViolation there, not false.
    const other = await this.db.one(`SELECT 1 FROM ${this.table} WHERE name = ? AND id <> ?`, [
      row.name,
      row.id,
    ]);
    if (other) throw new UniqueViolation('name', entity.name);
    return false;
  }

  async delete(id: string): Promise<boolean> {
    return this.db.transaction(async () => {
      await this.unmirror(id);
      return (await this.db.run(`DELETE FROM ${this.table} WHERE id = ?`, [id])) > 0;
    });
  }

  /** In id order (SQLite reads them from its (kind, entity_id, attribute) key, in that order). */
  async idsWithAnyAttribute(attributes: readonly string[]): Promise<string[]> {
    if (!this.roleKind || attributes.length === 0) return [];
    const rows = await this.db.rows<{ entity_id: string }>(
      `SELECT DISTINCT entity_id FROM role_attributes WHERE kind = ? AND attribute = ANY(?::text[])
       ORDER BY entity_id`,
      [this.roleKind, attributes],
    );
    return rows.map((r) => r.entity_id);
  }

  async attributes(): Promise<string[]> {
    if (!this.roleKind) return [];
    const rows = await this.db.rows<{ attribute: string }>(
      `SELECT DISTINCT attribute FROM role_attributes WHERE kind = ? ORDER BY attribute`,
      [this.roleKind],
    );
    return rows.map((r) => r.attribute);
  }

  /**
   * Writes what is derived from the entity into its index tables (here its role attributes), inside the
   * transaction of the write. Subclasses add their own.
   */
  protected async mirror(entity: T): Promise<void> {
    if (!this.roleKind) return;
    await this.db.run(`DELETE FROM role_attributes WHERE kind = ? AND entity_id = ?`, [
      this.roleKind,
      entity.id,
    ]);
    const attributes = entity.roleAttributes ?? [];
    if (attributes.length === 0) return;
    await this.db.run(
      `INSERT INTO role_attributes (kind, entity_id, attribute)
       SELECT ?, ?, attribute FROM unnest(?::text[]) AS given(attribute) ON CONFLICT DO NOTHING`,
      [this.roleKind, entity.id, attributes],
    );
  }

  /** Removes what `mirror` wrote, inside the transaction of the delete. */
  protected async unmirror(id: string): Promise<void> {
    if (this.roleKind)
      await this.db.run(`DELETE FROM role_attributes WHERE kind = ? AND entity_id = ?`, [this.roleKind, id]);
  }

  /** The row SQLite writes: the document is the entity without its columns' fields. */
  private toRow(entity: T) {
    const { id, name, createdAt, updatedAt, ...rest } = entity;
    return {
      id,
      name,
      // a string, with ::jsonb in the SQL: node-postgres would send an array-valued document as a SQL array
      doc: JSON.stringify(rest),
      createdAt: createdAt.toISOString(),
      updatedAt: updatedAt.toISOString(),
    };
  }

  /** Awaited<T> is T (an entity is no promise), spelled as the async face (store/async.ts) spells its answers. */
  protected fromRow(row: DocumentRow): Awaited<T> {
    return {
      ...row.doc,
      ...this.revive(row.doc),
      id: row.id,
      name: row.name,
      createdAt: new Date(row.created_at),
      updatedAt: new Date(row.updated_at),
    } as unknown as Awaited<T>;
  }
}
