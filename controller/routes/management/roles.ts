import type { ControllerContext } from '../../context.js';
import type { Entity } from '../../model.js';
import type { EntityRepository } from '../../store/repository.js';
import type { FieldCause } from '../../http/api-error.js';
import { at } from '../../http/field-path.js';

/**
 * Policy role syntax: `#attribute`, `@id-or-name`, or `#all` alone. `@name` is stored as `@id`, so a
 * later rename does not silently change what a policy selects.
 */
export function normaliseRoles<T extends Entity>(
  roles: readonly string[],
  field: string,
  repo: EntityRepository<T>,
  problems: FieldCause[],
): string[] {
  const out: string[] = [];
  roles.forEach((role, i) => {
    const where = at(field, i);
    if (role === '#all') {
      if (roles.length > 1)
        problems.push({ field: where, reason: '#all must be the only role when used', value: role });
      out.push(role);
    } else if (role.startsWith('#') && role.length > 1) {
      out.push(role);
    } else if (role.startsWith('@') && role.length > 1) {
      const target = repo.getByIdOrName(role.slice(1));
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

/** `{role, name}` pairs for the detail view: `@id` shows as `@name`. */
export function rolesDisplay<T extends Entity>(roles: readonly string[], repo: EntityRepository<T>) {
  return roles.map((role) => {
    if (!role.startsWith('@')) return { role, name: role };
    const target = repo.get(role.slice(1));
    return { role, name: target ? `@${target.name}` : role };
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
