/** Text schemas of the posture bodies' documented fields: bounded texts and lists of them. */
import { Type } from '@sinclair/typebox';

/** A list of texts of at most `maxLength` characters each. */
export const Strings = (description: string, maxLength: number) =>
  Type.Array(Type.String({ maxLength }), { description });
export const Text = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });
