/**
 * Errors in OpenZiti's envelope: `{error:{code,message,cause,requestId,args},meta}`. Routes throw `ApiError`;
 * the error handler renders it. Field problems carry the offending field in `cause`.
 */
export interface FieldCause {
  field: string;
  reason: string;
  value?: unknown;
  code?: string;
  message?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    override readonly cause?: FieldCause | Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** One invalid field: 400 COULD_NOT_VALIDATE naming it. Extra problems ride along in `cause.data`. */
export function validationError(problems: readonly FieldCause[]): ApiError {
  const [first, ...rest] = problems;
  const cause: FieldCause & { data?: unknown } = {
    field: first?.field ?? 'body',
    reason: first?.reason ?? 'invalid',
    value: first?.value,
    code: 'INVALID_FIELD',
    message: `${first?.field ?? 'body'}: ${first?.reason ?? 'invalid'}`,
  };
  if (rest.length) cause.data = { problems };
  return new ApiError(400, 'COULD_NOT_VALIDATE', 'The supplied request contains an invalid document', cause);
}

export const notFound = (what = 'entity') =>
  new ApiError(404, 'NOT_FOUND', `The resource requested was not found or is no longer available (${what})`);

export const unauthorized = (
  reason = 'The request could not be completed. The session is not authorized or the credentials are invalid',
) => new ApiError(401, 'UNAUTHORIZED', reason);

export const invalidAuth = () => new ApiError(401, 'INVALID_AUTH', 'The authentication request failed');

export function rateLimited(retryAfterSeconds: number, what = 'Too many failed attempts'): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(
    429,
    'RATE_LIMITED',
    `${what}; try again in ${seconds} second${seconds === 1 ? '' : 's'}`,
    undefined,
    { 'retry-after': String(seconds) },
  );
}
