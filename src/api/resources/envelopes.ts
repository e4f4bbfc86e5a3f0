/**
 * The envelopes (both APIs), error body and the parameters every collection takes (list query, `:id`,
 * `?cascade`), as TypeBox schemas (values the controller runs; see fields.ts).
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Links } from './fields.js';

export const Meta = Type.Object({}, { additionalProperties: true });
export const PaginationMeta = Type.Object({
  pagination: Type.Object({ limit: Type.Integer(), offset: Type.Integer(), totalCount: Type.Integer() }),
  filterableFields: Type.Array(Type.String()),
});

export const detailEnvelope = (data: TSchema) => Type.Object({ data, meta: Meta });
export const listEnvelope = (item: TSchema) => Type.Object({ data: Type.Array(item), meta: PaginationMeta });
export const CreateEnvelope = Type.Object({
  data: Type.Object({ id: Type.String(), _links: Links }),
  meta: Meta,
});
export const EmptyEnvelope = Type.Object({ data: Type.Object({}), meta: Meta });

export const ErrorEnvelope = Type.Object({
  error: Type.Object(
    {
      code: Type.String(),
      message: Type.String(),
      requestId: Type.String(),
      cause: Type.Optional(Type.Unknown()),
      args: Type.Optional(Type.Unknown()),
    },
    { additionalProperties: true },
  ),
  meta: Meta,
});

/** Standard error responses a route declares, so the OpenAPI document lists them. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorEnvelope])) as Record<number, typeof ErrorEnvelope>;

export const ListQuerystring = Type.Object({
  // -1: as many as one page holds (OpenZiti's "every row"; 500 here); more than 500 is clamped to 500, as
  // OpenZiti's controller does (controller/http/list-query.ts).
  limit: Type.Optional(Type.Integer({ minimum: -1 })),
  // Bounded so it always fits SQLite's integer (an offset past every row is simply an empty page).
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  filter: Type.Optional(Type.String({ maxLength: 1024 })),
  // `name asc`, `createdAt desc`: the order when the filter has no `sort by` (entity lists)
  sort: Type.Optional(Type.String({ maxLength: 256 })),
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

/** `DELETE …?cascade=true`: also remove what would otherwise refuse the delete (references to it). */
export const DeleteQuerystring = Type.Object({ cascade: Type.Optional(Type.Boolean()) });
