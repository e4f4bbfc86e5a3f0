/**
 * OpenZiti's response envelopes and error body. Every success is `{data, meta}`; every error
 * is `{error:{code,message,cause,...}, meta}`, where `cause` may name the offending field.
 */

export interface Pagination {
  limit: number;
  offset: number;
  totalCount: number;
}

export interface Meta {
  pagination?: Pagination;
  filterableFields?: string[];
  apiVersion?: string;
  apiEnrollmentVersion?: string;
}

export interface Envelope<T> {
  data: T;
  meta: Meta;
}

export interface Link {
  href: string;
  method?: string;
  comment?: string;
}

/** What a create (HTTP 201) answers. */
export interface CreatedEntity {
  id: string;
  _links?: Record<string, Link>;
}

export interface BaseEntity {
  id: string;
  createdAt: string;
  updatedAt: string;
  _links?: Record<string, Link>;
  tags?: Record<string, unknown> | null;
}

export interface EntityRef {
  id?: string;
  name?: string;
  entity?: string;
}

export interface ApiErrorCause {
  field?: string;
  reason?: string;
  value?: unknown;
  code?: string;
  message?: string;
  data?: unknown;
}

export interface ApiErrorDetail {
  code?: string;
  message?: string;
  requestId?: string;
  cause?: ApiErrorCause | null;
  causeMessage?: string;
  args?: { urlVars?: Record<string, string> };
  data?: unknown;
}

export interface ApiErrorEnvelope {
  error: ApiErrorDetail;
  meta?: Meta;
}

/** The OpenZiti error codes the agent reacts to; others pass through as strings. */
export const ERROR_CODES = {
  unauthorized: 'UNAUTHORIZED',
  invalidAuth: 'INVALID_AUTH',
  notFound: 'NOT_FOUND',
  couldNotValidate: 'COULD_NOT_VALIDATE',
  mfaInvalidToken: 'MFA_INVALID_TOKEN',
  mfaExists: 'MFA_EXISTS',
  alreadyMfaEnrolled: 'ALREADY_MFA_ENROLLED',
  mfaNotEnrolled: 'MFA_NOT_ENROLLED',
  invalidPosture: 'INVALID_POSTURE',
  rateLimited: 'RATE_LIMITED',
} as const;

export type KnownErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export function isErrorEnvelope(body: unknown): body is ApiErrorEnvelope {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { error?: unknown }).error === 'object' &&
    (body as { error?: unknown }).error !== null
  );
}
