/**
 * OpenZiti's response envelopes and error body. Every success is `{data, meta}`; every error
 * is `{error:{code,message,cause,...}, meta}`, where `cause` may name the offending field.
 */
import type { Static, TObject } from '@sinclair/typebox';
// Types only: the schemas are the controller's to run (see schemas.ts).
import type { BaseEntityFields, EntityRefSchema, LinkSchema } from './schemas.js';

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

/** OpenZiti's links also carry a `comment`, which Postern's do not. */
export type Link = Static<typeof LinkSchema> & { comment?: string };

/** What a create (HTTP 201) answers. */
export interface CreatedEntity {
  id: string;
  _links?: Record<string, Link>;
}

type WireEntity = Static<TObject<typeof BaseEntityFields>>;

/** The fields every entity starts with; a client does without `_links` and `tags` (which may be `null`). */
export type BaseEntity = Pick<WireEntity, 'id' | 'createdAt' | 'updatedAt'> & {
  _links?: Record<string, Link>;
  tags?: WireEntity['tags'] | null;
};

/** Another entity named by an entity; a client reads what it needs of it. */
export type EntityRef = Partial<Pick<Static<typeof EntityRefSchema>, 'id' | 'name' | 'entity'>>;

export interface ApiErrorCause {
  field?: string;
  reason?: string;
  value?: unknown;
  code?: string;
  message?: string;
  data?: unknown;
  /** Postern's: the audit event's reference of a refusal (`POST /sessions` answered INVALID_POSTURE) */
  reference?: string;
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

export function isErrorEnvelope(body: unknown): body is ApiErrorEnvelope {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { error?: unknown }).error === 'object' &&
    (body as { error?: unknown }).error !== null
  );
}
