/**
 * The field schemas every resource is built from (names, attributes, roles, tags, the base entity),
 * and `writeBodies`, which turns a resource's writable fields into its create, PUT and PATCH bodies. The
 * resource modules beside this one define each collection's bodies and entities with them; the controller
 * validates, serialises and publishes its OpenAPI documents with those, and the console reads the entities'
 * `Static` types.
 *
 * Like `../schemas.ts`, these are values only the controller runs: the console imports this folder as types
 * only, so its bundle carries no schema code.
 */
import { Type, type TOptional, type TProperties, type TSchema, type TUnknown } from '@sinclair/typebox';
import { BaseEntityFields, EntityRefSchema, LinkSchema, LinksSchema, TagsSchema } from '../schemas.js';

// Defined with the wire contract the agent shares (../schemas.ts); re-exported for the management resources.
export { DateTime, NullableDateTime, freeForm } from '../schemas.js';

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
/** Policy roles: `#attr`, `@id-or-name` or `#all` (checked further by the controller's catalogue/roles.ts). */
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
/** One role attribute, as `GET /{identity,service,posture-check,edge-router}-role-attributes` lists them. */
export const RoleAttribute = Type.String();
/** `@id` roles shown with the names behind them (policies' `…RolesDisplay`). */
export const NamedRoles = Type.Array(Type.Object({ role: Type.String(), name: Type.String() }));

/**
 * A copy of `schema` in which every object, however deep, refuses fields it does not have, as the body itself
 * does (an auth policy's `primary.updb.maxAttempt` is a 400 naming that path, not a setting dropped). An
 * object that says what it does with other fields (`additionalProperties` given) is left as it says.
 */
function closed<T extends TSchema>(schema: T): T {
  const s = schema as TSchema & Record<string, unknown>;
  const copy: Record<string | symbol, unknown> = { ...s };
  if (s.type === 'object' && s.properties) {
    copy.properties = closedFields(s.properties as TProperties);
    if (s.additionalProperties === undefined) copy.additionalProperties = false;
  }
  if (s.type === 'array' && s.items && !Array.isArray(s.items)) copy.items = closed(s.items as TSchema);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    if (Array.isArray(s[key])) copy[key] = (s[key] as TSchema[]).map(closed);
  return copy as T;
}

function closedFields<P extends TProperties>(fields: P): P {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, closed(v)])) as P;
}

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
  const all = closedFields({ ...writable, ...ignored });
  const create = Type.Object(all, { additionalProperties: false, ...(description ? { description } : {}) });
  // A PUT takes what a create takes.
  return { create, update: create, patch: Type.Partial(Type.Object(all), { additionalProperties: false }) };
}
