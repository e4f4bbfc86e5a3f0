/**
 * Fields inside a nested object that its schema does not have: refused by their full path
 * (`operatingSystems[0].version`), as the body's own unknown fields are refused by name (error-handler.ts),
 * so a typo deep in a body is an error rather than a setting silently dropped. For values whose schema the
 * route's validation does not walk itself (a posture check type's own fields, read by its module).
 *
 * Names match without regard to case, as OpenZiti's decoder matches them (`ziti edge create posture-check os`
 * sends `{Type, Versions}`). A schema that allows other fields (`additionalProperties` given) or that is a
 * choice of shapes (`anyOf`) is not walked: either shape's fields may be right.
 */
import { at } from '../field-path.js';
import type { FieldCause } from '../api-error.js';

/** The reason a body's unknown field is refused with (the same words at every depth). */
export const UNKNOWN_FIELD_REASON = 'is not a field of this request (check its spelling)';

interface WalkedSchema {
  type?: unknown;
  properties?: Record<string, WalkedSchema>;
  items?: WalkedSchema | WalkedSchema[];
  additionalProperties?: unknown;
  anyOf?: unknown;
  oneOf?: unknown;
}

/** `schema`: a JSON Schema (a TypeBox one) of the value found at `field`. */
export function unknownNestedFields(schema: object, value: unknown, field: string): FieldCause[] {
  const problems: FieldCause[] = [];
  walk(schema as WalkedSchema, value, field, problems);
  return problems;
}

function walk(schema: WalkedSchema, value: unknown, field: string, problems: FieldCause[]): void {
  if (schema.anyOf !== undefined || schema.oneOf !== undefined) return;
  if (Array.isArray(value)) {
    if (schema.items && !Array.isArray(schema.items))
      value.forEach((item, i) => walk(schema.items as WalkedSchema, item, at(field, i), problems));
    return;
  }
  if (value === null || typeof value !== 'object' || !schema.properties) return;
  const byLowerName = new Map(Object.keys(schema.properties).map((k) => [k.toLowerCase(), k]));
  for (const [key, inner] of Object.entries(value)) {
    const known = byLowerName.get(key.toLowerCase());
    if (known === undefined) {
      if (schema.additionalProperties === undefined || schema.additionalProperties === false)
        problems.push({ field: at(field, key), reason: UNKNOWN_FIELD_REASON });
      continue;
    }
    walk(schema.properties[known]!, inner, at(field, key), problems);
  }
}
