/**
 * The fields an OpenZiti filter may name on a list of documents, for PostgreSQL: the same names, types and
 * answers as the SQLite declaration (store/sqlite/document-filter.ts), written for `jsonb` documents. Compile
 * with `compileFilter(filter, fields, 'postgres')`. Every SQL fragment is written here; values only ever arrive
 * as placeholders (controller/store/filter).
 *
 * How each SQLite behaviour is kept:
 * - Text compares and sorts bytewise in SQLite; here every text expression is COLLATE "C", whatever the
 *   database's default collation (the schema declares its text columns the same way).
 * - json_extract gives a JSON number as a number and true/false as 1/0, and NULL for a missing key or JSON null.
 *   Here a number or boolean field reads the value only when the JSON holds that type, else NULL, so a document
 *   with an odd value is simply not matched instead of failing the whole query with a cast error.
 * - json_each over a missing roleAttributes yields no rows; jsonb_array_elements_text is given NULL then.
 */
import type { FilterField } from '../filter/index.js';
import { unsupportedRoleAttributesOp, type ExtraField } from '../sqlite/document-filter.js';

/**
 * `doc->>'name'` as text. The identity sort index on `type` (migrations/001-initial.ts) repeats this expression
 * exactly, or PostgreSQL would not use it; a test checks that it does.
 */
function documentTextSql(table: string, name: string): string {
  return `(${table}.doc->>'${name}') COLLATE "C"`;
}

/** The value of `name` in the document as `type`, NULL when missing or of another JSON type. */
function extraSql(table: string, name: string, type: FilterField['type']): string {
  const value = `${table}.doc->'${name}'`;
  switch (type) {
    case 'string':
    case 'datetime':
      // datetimes are ISO-8601 strings in the documents, compared as text like the filter's datetime(…) values
      return documentTextSql(table, name);
    case 'number':
      // float8: the same doubles SQLite and JavaScript compare
      return `CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${table}.doc->>'${name}')::float8 END`;
    case 'boolean':
      return `CASE WHEN jsonb_typeof(${value}) = 'boolean' THEN (${table}.doc->>'${name}')::boolean END`;
  }
}

export function documentFilterFields(
  table: string,
  hasRoleAttributes: boolean,
  extras: readonly ExtraField[] = [],
): Record<string, FilterField> {
  const fields: Record<string, FilterField> = {
    id: { sql: `${table}.id`, type: 'string', notNull: true },
    name: { sql: `${table}.name`, type: 'string', notNull: true },
    createdAt: { sql: `${table}.created_at`, type: 'datetime', notNull: true },
    updatedAt: { sql: `${table}.updated_at`, type: 'datetime', notNull: true },
  };
  // Names come from this file's callers, never from input.
  for (const [name, type, docKey = name] of extras)
    fields[name] = { sql: extraSql(table, docKey, type), type };
  if (hasRoleAttributes)
    fields.roleAttributes = {
      sql: `${table}.doc->'roleAttributes'`,
      type: 'string',
      custom: (op, values) => roleAttributesSql(table, op, values),
    };
  return fields;
}

function roleAttributesSql(table: string, op: string, values: unknown[]): { sql: string; params: unknown[] } {
  const attributes = `${table}.doc->'roleAttributes'`;
  // Only an array is iterated: anything else (missing, null, a stray scalar) has no attributes.
  const each = `jsonb_array_elements_text(CASE WHEN jsonb_typeof(${attributes}) = 'array' THEN ${attributes} END) AS attribute(value)`;
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
      return {
        sql: `CASE WHEN jsonb_typeof(${attributes}) = 'array' THEN jsonb_array_length(${attributes}) ELSE 0 END = 0`,
        params: [],
      };
    default:
      throw unsupportedRoleAttributesOp(op);
  }
}
