/**
 * The fields an OpenZiti filter may name on a list of documents: the columns every entity table has, its
 * role attributes (a set: `anyOf(roleAttributes) = "x"`, `roleAttributes contains "x"`, `isEmpty(...)`) and
 * the scalar document fields the kind declares. Every SQL fragment is written here; values only ever arrive
 * as placeholders (controller/store/filter).
 */
import { ApiError } from '../../api-error.js';
import type { FilterField } from '../filter/index.js';

/** A document field a filter may name; `docKey` when the filter's name is not the document's (configs' `type`). */
export type ExtraField = [name: string, type: FilterField['type'], docKey?: string];

export function documentFilterFields(
  table: string,
  hasRoleAttributes: boolean,
  extras: readonly ExtraField[] = [],
): Record<string, FilterField> {
  const fields: Record<string, FilterField> = {
    id: { sql: `${table}.id`, type: 'string' },
    name: { sql: `${table}.name`, type: 'string' },
    createdAt: { sql: `${table}.created_at`, type: 'datetime' },
    updatedAt: { sql: `${table}.updated_at`, type: 'datetime' },
  };
  for (const [name, type, docKey = name] of extras) {
    // Names come from this file's callers, never from input.
    fields[name] = { sql: `json_extract(${table}.doc, '$.${docKey}')`, type };
  }
  if (hasRoleAttributes)
    fields.roleAttributes = {
      sql: `json_extract(${table}.doc, '$.roleAttributes')`,
      type: 'string',
      custom: (op, values) => roleAttributesSql(table, op, values),
    };
  return fields;
}

function roleAttributesSql(table: string, op: string, values: unknown[]): { sql: string; params: unknown[] } {
  const each = `json_each(${table}.doc, '$.roleAttributes')`;
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
      return { sql: `coalesce(json_array_length(${table}.doc, '$.roleAttributes'), 0) = 0`, params: [] };
    default:
      throw unsupportedRoleAttributesOp(op);
  }
}

/** The 400 for an operator roleAttributes does not take; the PostgreSQL fields answer with the same. */
export function unsupportedRoleAttributesOp(op: string): ApiError {
  return new ApiError(400, 'INVALID_FILTER', `roleAttributes does not support '${op}'`, {
    field: 'filter',
    reason: `roleAttributes takes anyOf(roleAttributes) = / in, allOf(roleAttributes) in, contains, isEmpty(roleAttributes); not '${op}'`,
  });
}
