import type { ControllerContext } from '../platform/context.js';
import type { Entity } from '../model.js';
import type { EntityRepository } from '../store/repository.js';
import type { FieldCause } from '../api-error.js';
import { at } from '../field-path.js';

/**
 * Policy role syntax: `#attribute`, `@id-or-name`, or `#all` alone. `@name` is stored as `@id`, so a
 * later rename does not silently change what a policy selects.
 */
export async function normaliseRoles(
  roles: readonly string[],
  field: string,
  repo: Pick<EntityRepository<Entity>, 'getByIdOrName'>,
  problems: FieldCause[],
): Promise<string[]> {
  const named = (role: string) => role.startsWith('@') && role.length > 1;
  // Every `@` role's entity read at once, then the roles checked in their order.
  const targets = await Promise.all(
    roles.map(async (role) => (named(role) ? repo.getByIdOrName(role.slice(1)) : undefined)),
  );
  const out: string[] = [];
  roles.forEach((role, i) => {
    const where = at(field, i);
    if (role === '#all') {
      if (roles.length > 1)
        problems.push({ field: where, reason: '#all must be the only role when used', value: role });
      out.push(role);
    } else if (role.startsWith('#') && role.length > 1) {
      out.push(role);
    } else if (named(role)) {
      const target = targets[i];
      if (!target)
        problems.push({ field: where, reason: `no entity with id or name '${role.slice(1)}'`, value: role });
      else out.push(`@${target.id}`);
    } else {
      problems.push({
        field: where,
        reason: "a role must be '#attribute', '@id-or-name' or '#all'",
        value: role,
      });
    }
  });
  return [...new Set(out)];
}

/**
 * The names of the entities the `@id` roles of these role lists point at (id → name), for `rolesDisplay`:
 * one read for all of them, however many policies a page holds.
 */
export async function roleNames(
  roleLists: Iterable<readonly string[]>,
  repo: Pick<EntityRepository<Entity>, 'getMany'>,
): Promise<Map<string, string>> {
  const ids = new Set<string>();
  for (const roles of roleLists)
    for (const role of roles) if (role.startsWith('@') && role.length > 1) ids.add(role.slice(1));
  if (ids.size === 0) return new Map();
  return new Map((await repo.getMany([...ids])).map((e) => [e.id, e.name]));
}

/** `{role, name}` pairs for the detail view: `@id` shows as `@name` (`names` from `roleNames`). */
export function rolesDisplay(roles: readonly string[], names: ReadonlyMap<string, string>) {
  return roles.map((role) => {
    if (!role.startsWith('@')) return { role, name: role };
    const name = names.get(role.slice(1));
    return { role, name: name === undefined ? role : `@${name}` };
  });
}

/**
 * Role attributes are stored as given, as OpenZiti stores them: `#` is role syntax in `*Roles` (`#sales`
 * selects the attribute `sales`), not part of an attribute, so an attribute `#sales` is a different name.
 * Only repeats are dropped.
 */
export function normaliseAttributes(attributes: readonly string[]): string[] {
  return [...new Set(attributes)];
}

export type { ControllerContext };
