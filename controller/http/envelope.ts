/** OpenZiti's success envelopes: `{data, meta}`. */

export const API_META = { apiVersion: '0.0.1', apiEnrollmentVersion: '0.0.1' } as const;

export interface Pagination {
  limit: number;
  offset: number;
  totalCount: number;
}

export const detail = <T>(data: T) => ({ data, meta: {} });

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

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
