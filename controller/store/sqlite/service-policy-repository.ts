import type { Db } from '../database.js';
import type { ServicePolicy } from '../../model.js';
import type { PolicySide, ServicePolicyRepository } from '../repository.js';
import { DocumentRepository, placeholders } from './document-repository.js';

const SIDES: Record<PolicySide, keyof ServicePolicy> = {
  identity: 'identityRoles',
  service: 'serviceRoles',
  postureCheck: 'postureCheckRoles',
};

/** Service policies, with their roles mirrored into `policy_roles` so "which policies select X" is an index lookup. */
export class SqliteServicePolicyRepository
  extends DocumentRepository<ServicePolicy>
  implements ServicePolicyRepository
{
  private readonly clearRoles;
  private readonly addRole;

  constructor(db: Db) {
    super(db, 'service_policies', null, undefined, {
      cache: true,
      filterExtras: [
        ['type', 'string'],
        ['semantic', 'string'],
      ],
    });
    this.clearRoles = db.prepare(`DELETE FROM policy_roles WHERE policy_id = ?`);
    this.addRole = db.prepare(`INSERT OR IGNORE INTO policy_roles (policy_id, side, role) VALUES (?, ?, ?)`);
  }

  override create(policy: ServicePolicy): void {
    this.db.transaction(() => {
      super.create(policy);
      this.syncRoles(policy);
    })();
  }

  override update(policy: ServicePolicy): boolean {
    return this.db.transaction(() => {
      const changed = super.update(policy);
      if (changed) this.syncRoles(policy);
      return changed;
    })();
  }

  override delete(id: string): boolean {
    return this.db.transaction(() => {
      this.clearRoles.run(id);
      return super.delete(id);
    })();
  }

  selecting(side: PolicySide, roles: readonly string[]): ServicePolicy[] {
    if (roles.length === 0) return [];
    const ids = this.sql(
      `SELECT DISTINCT policy_id FROM policy_roles WHERE side = ? AND role IN (${placeholders(roles.length)})`,
    ).all(side, ...roles) as { policy_id: string }[];
    return this.getMany(ids.map((r) => r.policy_id));
  }

  private syncRoles(policy: ServicePolicy): void {
    this.clearRoles.run(policy.id);
    for (const [side, field] of Object.entries(SIDES)) {
      for (const role of policy[field] as string[]) this.addRole.run(policy.id, side, role);
    }
  }
}
