/**
 * The fields an OpenZiti filter may name on a list of documents, for either database: the columns every entity
 * table has, its role attributes (a set: `anyOf(roleAttributes) = "x"`, `roleAttributes contains "x"`,
 * `isEmpty(...)`) and the scalar document fields the kind declares, with the same names, types and answers on
 * both. Compile with `compileFilter(filter, fields, dialect)`. Every SQL fragment is written here; values only
 * ever arrive as placeholders (controller/store/filter).
 *
 * How PostgreSQL keeps SQLite's behaviour:
 * - Text compares and sorts bytewise in SQLite; there every text expression is COLLATE "C", whatever the
 *   database's default collation (the schema declares its text columns the same way).
 * - json_extract gives a JSON number as a number and true/false as 1/0, and NULL for a missing key or JSON null.
 *   On PostgreSQL a number or boolean field reads the value only when the JSON holds that type, else NULL, so a
 *   document with an odd value is simply not matched instead of failing the whole query with a cast error.
 * - json_each over a missing roleAttributes yields no rows; jsonb_array_elements_text is given NULL then.
 */
import { ApiError } from '../../api-error.js';
import type { FilterDialect, FilterField } from '../filter/index.js';

/** A document field a filter may name; `docKey` when the filter's name is not the document's (configs' `type`). */
export type ExtraField = [name: string, type: FilterField['type'], docKey?: string];

/** How one database reads a document's fields. */
interface DocumentSql {
  /** the value of `docKey` in the document as `type`, NULL when missing (PostgreSQL: or of another JSON type) */
  field(table: string, docKey: string, type: FilterField['type']): string;
  /** the filter's `roleAttributes` (the column a plain compare names) */
  readonly roleAttributes: (table: string) => string;
  /** the role attributes as rows of one column `value` (none when missing) */
  eachRoleAttribute(table: string): string;
  /** true when the document has no role attributes */
  noRoleAttributes(table: string): string;
  /** an identity's `disabled` as its detail answers it, see identityDisabledNow */
  identityDisabledNow(table: string): string;
  /** a list's `nameContains`: the name holds the parameter, ASCII letters folded */
  nameContains(table: string): string;
}

const SQLITE: DocumentSql = {
  field: (table, docKey) => `json_extract(${table}.doc, '$.${docKey}')`,
  roleAttributes: (table) => `json_extract(${table}.doc, '$.roleAttributes')`,
  eachRoleAttribute: (table) => `json_each(${table}.doc, '$.roleAttributes')`,
  noRoleAttributes: (table) => `coalesce(json_array_length(${table}.doc, '$.roleAttributes'), 0) = 0`,
  identityDisabledNow: (table) => {
    const until = `json_extract(${table}.doc, '$.disabledUntil')`;
    return `(CASE WHEN json_extract(${table}.doc, '$.disabled') = 1 AND (${until} IS NULL OR ${until} > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) THEN 1 ELSE 0 END)`;
  },
  nameContains: (table) => `instr(lower(${table}.name), lower(?)) > 0`,
};

/**
 * `doc->>'name'` as text. The identity sort index on `type` (PostgreSQL migrations/001-initial.ts) repeats this
 * expression exactly, or PostgreSQL would not use it; a test checks that it does.
 */
const pgText = (table: string, name: string) => `(${table}.doc->>'${name}') COLLATE "C"`;

/** Only an array is iterated: anything else (missing, null, a stray scalar) has no attributes. */
const pgAttributeArray = (table: string) => {
  const attributes = `${table}.doc->'roleAttributes'`;
  return `CASE WHEN jsonb_typeof(${attributes}) = 'array' THEN ${attributes} END`;
};

const POSTGRES: DocumentSql = {
  field: (table, name, type) => {
    const value = `${table}.doc->'${name}'`;
    switch (type) {
      case 'string':
      case 'datetime':
        // datetimes are ISO-8601 strings in the documents, compared as text like the filter's datetime(…) values
        return pgText(table, name);
      case 'number':
        // float8: the same doubles SQLite and JavaScript compare
        return `CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${table}.doc->>'${name}')::float8 END`;
      case 'boolean':
        return `CASE WHEN jsonb_typeof(${value}) = 'boolean' THEN (${table}.doc->>'${name}')::boolean END`;
    }
  },
  roleAttributes: (table) => `${table}.doc->'roleAttributes'`,
  eachRoleAttribute: (table) => `jsonb_array_elements_text(${pgAttributeArray(table)}) AS attribute(value)`,
  noRoleAttributes: (table) => `coalesce(jsonb_array_length(${pgAttributeArray(table)}), 0) = 0`,
  identityDisabledNow: (table) => {
    const until = pgText(table, 'disabledUntil');
    return `(${POSTGRES.field(table, 'disabled', 'boolean')} IS TRUE AND (${until} IS NULL OR ${until} > to_iso_timestamp(now())))`;
  },
  // COLLATE "C": lower() folds ASCII letters only, as SQLite's does, whatever the database's collation
  nameContains: (table) => `strpos(lower(${table}.name), lower(?::text COLLATE "C")) > 0`,
};

export const DOCUMENT_SQL: Record<FilterDialect, DocumentSql> = { sqlite: SQLITE, postgres: POSTGRES };

export function documentFilterFields(
  dialect: FilterDialect,
  table: string,
  hasRoleAttributes: boolean,
  extras: readonly ExtraField[] = [],
): Record<string, FilterField> {
  const sql = DOCUMENT_SQL[dialect];
  const fields: Record<string, FilterField> = {
    id: { sql: `${table}.id`, type: 'string', notNull: true },
    name: { sql: `${table}.name`, type: 'string', notNull: true },
    createdAt: { sql: `${table}.created_at`, type: 'datetime', notNull: true },
    updatedAt: { sql: `${table}.updated_at`, type: 'datetime', notNull: true },
  };
  // Names come from this file's callers, never from input.
  for (const [name, type, docKey = name] of extras)
    fields[name] = { sql: sql.field(table, docKey, type), type };
  // An identity's `disabled` as its detail answers it (identity-disabled.ts): a timed disable counts until its
  // `disabledUntil` has passed, and not after, though the stored flag stays true (a timed disable ends with no
  // write). ISO-8601 UTC texts of one shape compare as their instants.
  if (table === 'identities')
    fields.disabled = { sql: sql.identityDisabledNow(table), type: 'boolean', notNull: true };
  if (hasRoleAttributes)
    fields.roleAttributes = {
      sql: sql.roleAttributes(table),
      type: 'string',
      custom: (op, values) => roleAttributesSql(sql, table, op, values),
    };
  return fields;
}

function roleAttributesSql(
  sql: DocumentSql,
  table: string,
  op: string,
  values: unknown[],
): { sql: string; params: unknown[] } {
  const each = sql.eachRoleAttribute(table);
  const marks = values.map(() => '?').join(', ') || 'NULL';
  switch (op) {
    case 'anyOf =':
    case 'contains':
      return { sql: `EXISTS (SELECT 1 FROM ${each} WHERE value = ?)`, params: values.slice(0, 1) };
    case 'anyOf !=':
    case 'not contains':
      return { sql: `NOT EXISTS (SELECT 1 FROM ${each} WHERE value = ?)`, params: values.slice(0, 1) };
    case 'anyOf in':
      return { sql: `EXISTS (SELECT 1 FROM ${each} WHERE value IN (${marks}))`, params: values };
    case 'allOf in':
      return { sql: `NOT EXISTS (SELECT 1 FROM ${each} WHERE value NOT IN (${marks}))`, params: values };
    case 'anyOf not in':
      return { sql: `NOT EXISTS (SELECT 1 FROM ${each} WHERE value IN (${marks}))`, params: values };
    case 'isEmpty':
      return { sql: sql.noRoleAttributes(table), params: [] };
    default:
      throw new ApiError(400, 'INVALID_FILTER', `roleAttributes does not support '${op}'`, {
        field: 'filter',
        reason: `roleAttributes takes anyOf(roleAttributes) = / in, allOf(roleAttributes) in, contains, isEmpty(roleAttributes); not '${op}'`,
      });
  }
}
