/**
 * An error the management API answered (or the network failed to bring an answer), with what a form needs:
 * every field the API named, as it names them (`operatingSystems[0].versions[0]`).
 */
import type { ApiErrorEnvelope } from '../../../src/api/envelopes.js';

export interface FieldProblem {
  field: string;
  reason: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly problems: FieldProblem[] = [],
    readonly cause?: unknown,
  ) {
    super(message);
  }

  /** Builds the error from OpenZiti's envelope: `cause.field` first, then `cause.data.problems`. */
  static fromEnvelope(status: number, body: ApiErrorEnvelope): ApiError {
    const { code = 'UNKNOWN', message = `HTTP ${status}`, cause } = body.error;
    const problems: FieldProblem[] = [];
    const listed = (cause?.data as { problems?: FieldProblem[] } | undefined)?.problems;
    for (const p of listed ?? []) problems.push({ field: p.field, reason: p.reason });
    if (cause?.field && !problems.some((p) => p.field === cause.field))
      problems.unshift({ field: cause.field, reason: cause.reason ?? 'is not valid' });
    return new ApiError(status, code, message, problems, cause);
  }

  /** What a person reads: the first field problem when there is one, else the API's message. */
  get summary(): string {
    const first = this.problems[0];
    return first ? `${first.field}: ${first.reason}` : this.message;
  }
}

/** Any thrown value in words. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.summary;
  return error instanceof Error ? error.message : String(error);
}
