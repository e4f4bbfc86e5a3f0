/** OpenZiti's success envelopes: `{data, meta}`. */

export const API_META = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' } as const;

export interface Pagination {
  limit: number;
  offset: number;
  totalCount: number;
}

export const detail = <T>(data: T) => ({ data, meta: {} });

/** OpenZiti's error body, for every path that answers one (handlers, the router, Node's parser). */
export const errorEnvelope = (e: {
  code: string;
  message: string;
  cause?: unknown;
  requestId?: string;
  urlVars?: Record<string, string>;
}) => ({
  error: {
    code: e.code,
    message: e.message,
    ...(e.cause === undefined ? {} : { cause: e.cause }),
    ...(e.requestId === undefined ? {} : { requestId: e.requestId }),
    args: { urlVars: e.urlVars ?? {} },
  },
  meta: API_META,
});

export const list = <T>(data: T[], pagination: Pagination) => ({
  data,
  meta: { pagination, filterableFields: ['id', 'name'] },
});

/** 201 body: the new entity's id and where to read it. */
export const created = (collection: string, id: string) => ({
  data: { id, _links: { self: { href: `./${collection}/${id}` } } },
  meta: {},
});

/** Update, patch and delete answer with an empty envelope. */
export const empty = () => ({ data: {}, meta: {} });

export const selfLinks = (collection: string, id: string) => ({ self: { href: `./${collection}/${id}` } });

/** ISO 8601 text of a date; `null` for none (a non-null date always gives text, so its type says so). */
export function iso(d: Date): string;
export function iso(d: Date | null | undefined): string | null;
export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}

/** The fields every entity shows: id, name, timestamps, its self link and tags. */
export const entityBase = (
  collection: string,
  e: { id: string; name: string; createdAt: Date; updatedAt: Date; tags: Record<string, unknown> },
) => ({
  id: e.id,
  name: e.name,
  createdAt: iso(e.createdAt),
  updatedAt: iso(e.updatedAt),
  _links: selfLinks(collection, e.id),
  tags: e.tags,
});
