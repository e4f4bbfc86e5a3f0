/**
 * A descriptor-built check form's values (descriptor-fields.tsx shows them): from a stored check, and into the
 * body the API takes. Plain functions, apart from the component, so they are tested without a browser.
 */
import type { OptionField, PostureTypeDescriptor } from '../../../../../src/api/posture-types/index.js';

/** What the form holds per field: a checkbox's state, or the text as typed. */
export type OptionValues = Record<string, string | boolean>;

export const isFlag = (field: OptionField) => field.schema.type === 'boolean';
const isNumber = (field: OptionField) => field.schema.type === 'integer' || field.schema.type === 'number';

/** The form's values for a check as the API shows it back (or the descriptor's defaults for a new one). */
export function optionValuesOf(
  descriptor: PostureTypeDescriptor,
  check: Record<string, unknown> | undefined,
): OptionValues {
  return Object.fromEntries(
    descriptor.optionFields.map((field) => {
      const value = check?.[field.name] ?? field.schema.default;
      return [
        field.name,
        isFlag(field) ? value === true : value === undefined || value === null ? '' : String(value),
      ];
    }),
  );
}

/**
 * The body's fields: a number as a number when it reads as one, otherwise the text itself, for the API to refuse
 * by name; an empty optional field is left out (the API takes its default).
 */
export function optionBody(descriptor: PostureTypeDescriptor, values: OptionValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of descriptor.optionFields) {
    const value = values[field.name];
    if (typeof value === 'boolean') body[field.name] = value;
    else if (value === undefined || value.trim() === '') {
      if (field.required) body[field.name] = null;
    } else if (isNumber(field) && /^-?\d+(\.\d+)?$/.test(value.trim()))
      body[field.name] = Number(value.trim());
    else body[field.name] = value.trim();
  }
  return body;
}
