import {
  BaseEntityFields,
  EntityRefSchema,
  LinkSchema,
  LinksSchema,
  TagsSchema,
} from '../../src/api/schemas.js';
import { Type, type TOptional, type TProperties, type TSchema, type TUnknown } from '@sinclair/typebox';

/** Schemas shared by every route: envelopes, base entity fields, list parameters. */

// Defined with the wire contract the agent shares (src/api/schemas.ts); re-exported for the routes.
export { DateTime, NullableDateTime, freeForm } from '../../src/api/schemas.js';

/** Free-form tags; `null` in a write clears them (OpenZiti's `x-nullable`). */
export const Tags = TagsSchema;
export const Link = LinkSchema;
export const Links = LinksSchema;
export const EntityRef = EntityRefSchema;
/** The fields every entity starts with (spread into each entity's schema). */
export const BaseEntity = BaseEntityFields;

/** Text a person reads in a list or a log: no control or formatting characters (which can hide or reorder). */
const printable = {
  pattern: '^[^\\p{Cc}\\p{Cf}]*$',
  'x-reasons': { pattern: 'must not contain control or formatting characters' },
};
/** Role attributes: names without `#`. */
export const Attributes = Type.Array(Type.String({ minLength: 1, maxLength: 256, ...printable }), {
  maxItems: 1000,
});
/** Policy roles: `#attr`, `@id-or-name` or `#all` (checked further in roles.ts). */
export const Roles = Type.Array(Type.String({ minLength: 1, maxLength: 512, ...printable }), {
  maxItems: 1000,
});
export const Name = Type.String({ minLength: 1, maxLength: 255, ...printable });
/** Another entity named in a body, by id (or by name where the route takes either): as long as a name. */
export const Reference = Type.String({ minLength: 1, maxLength: 255 });
/**
 * An identity's `externalId`: the subject another identity provider knows it by (an OIDC `sub` is at most 255
 * ASCII characters).
 */
export const ExternalId = Type.String({ maxLength: 255, ...printable });
/** A sentence or two a person reads as written (an administrator's advice, with a link). */
export const Sentence = Type.String({ maxLength: 1000, ...printable });

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
  // -1: as many as one page holds (OpenZiti's "every row"; 500 here).
  limit: Type.Optional(Type.Integer({ minimum: -1, maximum: 500 })),
  // Bounded so it always fits SQLite's integer (an offset past every row is simply an empty page).
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
  filter: Type.Optional(Type.String({ maxLength: 1024 })),
  // `name asc`, `createdAt desc`: the order when the filter has no `sort by` (entity lists)
  sort: Type.Optional(Type.String({ maxLength: 256 })),
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });

/**
 * The bodies of a create/PUT and of a PATCH. A field in neither Postern nor OpenZiti's definition of the
 * body is a 400 naming it (a typo such as `identityRole` must never silently do nothing); the fields OpenZiti
 * defines that Postern does not implement (`openZitiOnly`) are accepted and ignored, so its clients keep
 * working.
 */
export function writeBodies<P extends TProperties, O extends string = never>(
  writable: P,
  openZitiOnly: readonly O[] = [],
  description?: string,
) {
  // Typed field by field, so a route's handler reads its body with the fields' own types.
  const ignored = Object.fromEntries(
    openZitiOnly.map((f) => [
      f,
      Type.Optional(Type.Unknown({ description: 'accepted for OpenZiti clients; not used' })),
    ]),
  ) as { [K in O]: TOptional<TUnknown> };
  const all = { ...writable, ...ignored };
  const create = Type.Object(all, { additionalProperties: false, ...(description ? { description } : {}) });
  // A PUT takes what a create takes.
  return { create, update: create, patch: Type.Partial(Type.Object(all), { additionalProperties: false }) };
}
