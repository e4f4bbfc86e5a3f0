/**
 * How a policy's roles select an entity (identity, service, posture check), as OpenZiti does it:
 * `#all` selects everything, `@id` selects that entity, and the `#attribute` roles select by the policy's
 * semantic: AllOf needs the entity to carry every one of them, AnyOf any one.
 */
import type { Semantic } from '../model.js';

export const ALL_ROLE = '#all';

/** The roles that could select an entity: what to look up in the `policy_roles` index. */
export function rolesOf(entityId: string, attributes: readonly string[]): string[] {
  return [ALL_ROLE, `@${entityId}`, ...attributes.map((a) => `#${a}`)];
}

/** The attribute names a role list asks for (`#sales` → `sales`; `#all` and `@id` are not attributes). */
export function attributeRoles(roles: readonly string[]): string[] {
  return roles.filter((r) => r.startsWith('#') && r !== ALL_ROLE).map((r) => r.slice(1));
}

/** The entity ids a role list names directly with `@id`. */
export function idRoles(roles: readonly string[]): string[] {
  return roles.filter((r) => r.startsWith('@')).map((r) => r.slice(1));
}

/**
 * The attribute roles of a role list, derived once per list: a decision asks the same policy's lists again
 * for every identity and service (an impact preview, millions of times), and the lists are never changed in
 * place (a write stores new ones).
 */
const wantedOf = new WeakMap<readonly string[], string[]>();

export function roleSelects(
  semantic: Semantic,
  roles: readonly string[],
  entityId: string,
  attributes: readonly string[],
): boolean {
  if (roles.includes(ALL_ROLE) || roles.includes(`@${entityId}`)) return true;
  let wanted = wantedOf.get(roles);
  if (!wanted) wantedOf.set(roles, (wanted = attributeRoles(roles)));
  if (wanted.length === 0) return false;
  // Entities carry a handful of attributes: a scan costs less than building a set on every call.
  return semantic === 'AllOf'
    ? wanted.every((a) => attributes.includes(a))
    : wanted.some((a) => attributes.includes(a));
}
