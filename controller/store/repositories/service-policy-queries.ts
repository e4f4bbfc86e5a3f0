/**
 * Service policies, one code for both databases, with their roles mirrored into `policy_roles` so "which
 * policies select X" is an index lookup. With a cache, what `selecting` found is kept too (every access
 * decision asks for the caller's roles), forgotten with the policies.
 */
import type { ServicePolicy } from '../../model.js';
import { ENTITY_KINDS } from '../entity-kinds.js';
import type { PolicySide } from '../repository.js';
import type { Dialect } from '../sql/dialect.js';
import { rows, run, type Sql } from '../sql/statement.js';
import type { DocumentCache } from './document-cache.js';
import { DocumentQueries, type DocumentRow } from './document-queries.js';

const SIDES: Record<PolicySide, 'identityRoles' | 'serviceRoles' | 'postureCheckRoles'> = {
  identity: 'identityRoles',
  service: 'serviceRoles',
  postureCheck: 'postureCheckRoles',
};

/** Role lists whose policies are kept, at most: one entry per distinct list, so a large directory stays bounded. */
const MAX_SELECTED = 10_000;

export class ServicePolicyQueries extends DocumentQueries<ServicePolicy> {
  /** the ids `selecting` found, per side and role list */
  private readonly selected = new Map<string, string[]>();

  constructor(dialect: Dialect, cache?: DocumentCache<ServicePolicy>) {
    super(dialect, ENTITY_KINDS.servicePolicies, cache);
    cache?.onForget(() => this.selected.clear());
  }

  /** policies whose `side` roles include any of `roles`, in id order */
  *selecting(side: PolicySide, roles: readonly string[]): Sql<ServicePolicy[]> {
    if (roles.length === 0) return [];
    const generation = this.cache?.gate.readable();
    if (generation === undefined) {
      const asked = this.dialect.oneOf('role', roles);
      // Nothing from memory: the policies in one read.
      const found = yield* rows<DocumentRow>(
        `SELECT ${this.columns} FROM ${this.table}
         WHERE id IN (SELECT policy_id FROM policy_roles WHERE side = ? AND ${asked.sql}) ORDER BY id`,
        [side, ...asked.params],
      );
      const keep = this.keeps(generation);
      return found.map((r) => this.decode(r, keep));
    }
    const key = JSON.stringify([side, roles]);
    let ids = this.selected.get(key);
    if (!ids) {
      const asked = this.dialect.oneOf('role', roles);
      const found = yield* rows<{ policy_id: string }>(
        `SELECT DISTINCT policy_id FROM policy_roles WHERE side = ? AND ${asked.sql} ORDER BY policy_id`,
        [side, ...asked.params],
      );
      ids = found.map((r) => r.policy_id);
      if (this.keeps(generation)) {
        if (this.selected.size >= MAX_SELECTED) this.selected.clear();
        this.selected.set(key, ids);
      }
    }
    return yield* this.getMany(ids);
  }

  /** Replaces the policy's roles, every side in one insert, inside the write's transaction. */
  protected override *mirror(policy: ServicePolicy): Sql<void> {
    yield* super.mirror(policy);
    yield* run(`DELETE FROM policy_roles WHERE policy_id = ?`, [policy.id]);
    const given: [string, string][] = [];
    for (const [side, field] of Object.entries(SIDES))
      for (const role of policy[field]) given.push([side, role]);
    if (given.length === 0) return;
    const relation = this.dialect.relation('given', ['side', 'role'], given);
    // WHERE true: SQLite would read ON CONFLICT as a join's ON otherwise
    yield* run(
      `INSERT INTO policy_roles (policy_id, side, role)
       SELECT ?, given.side, given.role FROM ${relation.sql} WHERE true ON CONFLICT DO NOTHING`,
      [policy.id, ...relation.params],
    );
  }

  protected override *unmirror(id: string): Sql<void> {
    yield* super.unmirror(id);
    yield* run(`DELETE FROM policy_roles WHERE policy_id = ?`, [id]);
  }
}
