/**
 * A descriptor field's schema in words ("an integer from 1 to 1440", "true, false or null"): what a 400 says a
 * value must be, and what the admin CLI's help and the console's form say a field takes. Only the schema forms
 * descriptors use are worded; any other reads "a valid value".
 */
import type { TSchema } from '@sinclair/typebox';

const range = (lo: unknown, hi: unknown) =>
  typeof lo === 'number' && typeof hi === 'number'
    ? ` from ${lo} to ${hi}`
    : typeof lo === 'number'
      ? ` of at least ${lo}`
      : typeof hi === 'number'
        ? ` of at most ${hi}`
        : '';

export function schemaInWords(schema: TSchema): string {
  if (Array.isArray(schema.anyOf)) {
    const words = (schema.anyOf as TSchema[]).map(schemaInWords);
    return words.length <= 1
      ? (words[0] ?? 'a valid value')
      : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  switch (schema.type) {
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'integer':
      return `an integer${range(schema.minimum, schema.maximum)}`;
    case 'number':
      return `a number${range(schema.minimum, schema.maximum)}`;
    case 'string':
      return typeof schema.minLength === 'number' && schema.minLength > 0
        ? `a non-empty string of at most ${schema.maxLength} characters`
        : `a string of at most ${schema.maxLength} characters`;
    case 'array':
      return 'an array';
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}
