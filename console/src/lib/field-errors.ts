/**
 * The API's field problems placed next to the inputs they are about. The API names fields the way a form
 * nests them (`operatingSystems[1].versions[0]`); an input for a whole list (one line per item) shows the
 * problems of its items with their line numbers.
 */
import type { ApiError, FieldProblem } from '../api/api-error.js';

export type FieldErrors = FieldProblem[];

export function fieldErrorsOf(error: unknown): FieldErrors {
  return (error as ApiError | undefined)?.problems ?? [];
}

/** The problems about `field` itself or anything inside it (`field[2]`, `field.path`). */
export function problemsUnder(errors: FieldErrors, field: string): FieldProblem[] {
  return errors.filter(
    (p) => p.field === field || p.field.startsWith(`${field}[`) || p.field.startsWith(`${field}.`),
  );
}

/**
 * One message for the input of `field`: the reason; `line 2: …` for an item of a one-per-line list; the full
 * field name for anything deeper (a key inside a JSON value).
 */
export function messageFor(errors: FieldErrors, field: string): string | undefined {
  const problems = problemsUnder(errors, field);
  if (problems.length === 0) return undefined;
  return problems
    .map((p) => {
      if (p.field === field) return p.reason;
      const item = new RegExp(`^${escapeRegExp(field)}\\[(\\d+)\\]$`).exec(p.field);
      // Something deeper inside (a key of a JSON value): name it.
      return item ? `line ${Number(item[1]) + 1}: ${p.reason}` : `${p.field}: ${p.reason}`;
    })
    .join('; ');
}

/** Problems no input of the form claims (shown above the buttons, with their field names). */
export function unclaimed(errors: FieldErrors, claimed: readonly string[]): FieldProblem[] {
  return errors.filter((p) => !claimed.some((field) => problemsUnder([p], field).length > 0));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
