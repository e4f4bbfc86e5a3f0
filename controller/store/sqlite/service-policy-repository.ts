import type { Db } from '../database.js';
import type { ServicePolicy } from '../../model.js';
import { ENTITY_KINDS } from '../entity-kinds.js';
import type { PolicySide, SyncServicePolicyRepository } from '../repository.js';
import { DocumentRepository, placeholders } from './document-repository.js';

const SIDES: Record<PolicySide, keyof ServicePolicy> = {
  identity: 'identityRoles',
  service: 'serviceRoles',
  postureCheck: 'postureCheckRoles',
};

/** Service policies, with their roles mirrored into `policy_roles` so "which policies select X" is an index lookup. */
export class SqliteServicePolicyRepository
  extends DocumentRepository<ServicePolicy>
  implements SyncServicePolicyRepository
{
  private readonly clearRoles;
  private readonly addRole;
  /**
   * The ids `selecting` found, per side and role list (every access decision asks for the caller's roles);
   * emptied on every policy write and when the store clears its caches.
   */
  private readonly selected = new Map<string, string[]>();

  constructor(db: Db) {
    const kind = ENTITY_KINDS.servicePolicies;
    super(db, kind.table, kind.roleKind, undefined, { cache: true, filterExtras: kind.filterExtras });
    this.clearRoles = db.prepare(`DELETE FROM policy_roles WHERE policy_id = ?`);
    this.addRole = db.prepare(`INSERT OR IGNORE INTO policy_roles (policy_id, side, role) VALUES (?, ?, ?)`);
  }

  override create(policy: ServicePolicy): void {
    this.selected.clear();
    this.db.transaction(() => {
      super.create(policy);
      this.syncRoles(policy);
    })();
  }

  override update(policy: ServicePolicy): boolean {
    this.selected.clear();
    return this.db.transaction(() => {
      const changed = super.update(policy);
      if (changed) this.syncRoles(policy);
      return changed;
    })();
  }

  override delete(id: string): boolean {
    this.selected.clear();
    return this.db.transaction(() => {
      this.clearRoles.run(id);
      return super.delete(id);
    })();
  }

  selecting(side: PolicySide, roles: readonly string[]): ServicePolicy[] {
    if (roles.length === 0) return [];
    const key = JSON.stringify([side, roles]);
    let ids = this.selected.get(key);
    if (!ids) {
      const rows = this.sql(
        `SELECT DISTINCT policy_id FROM policy_roles WHERE side = ? AND role IN (${placeholders(roles.length)})`,
      ).all(side, ...roles) as { policy_id: string }[];
      ids = rows.map((r) => r.policy_id);
      // Bounded: one entry per distinct role list, so a large directory cannot grow it without end.
      if (this.selected.size >= 10_000) this.selected.clear();
      this.selected.set(key, ids);
    }
    return this.getMany(ids);
  }

  override clearCache(): void {
    super.clearCache();
    this.selected.clear();
  }

  private syncRoles(policy: ServicePolicy): void {
    this.clearRoles.run(policy.id);
    for (const [side, field] of Object.entries(SIDES)) {
      for (const role of policy[field] as string[]) this.addRole.run(policy.id, side, role);
    }
  }
}
