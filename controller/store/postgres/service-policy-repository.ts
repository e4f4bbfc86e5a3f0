/**
 * Service policies in PostgreSQL, with their roles mirrored into `policy_roles` so "which policies select X"
 * is an index lookup: the same answers as SQLite's repository (store/sqlite/service-policy-repository.ts),
 * without its caches (several controllers share the tables).
 */
import type { ServicePolicy } from '../../model.js';
import { ENTITY_KINDS } from '../entity-kinds.js';
import type { PolicySide, ServicePolicyRepository } from '../repository.js';
import { PgDocumentRepository, type DocumentRow } from './document-repository.js';
import type { PgDatabase } from './pg-database.js';

const SIDES: Record<PolicySide, 'identityRoles' | 'serviceRoles' | 'postureCheckRoles'> = {
  identity: 'identityRoles',
  service: 'serviceRoles',
  postureCheck: 'postureCheckRoles',
};

export class PgServicePolicyRepository
  extends PgDocumentRepository<ServicePolicy>
  implements ServicePolicyRepository
{
  constructor(db: PgDatabase) {
    const kind = ENTITY_KINDS.servicePolicies;
    super(db, kind.table, kind.roleKind, undefined, { filterExtras: kind.filterExtras });
  }

  /**
   * In id order. SQLite's order depends on its cache (by id when it reads the policies, else by role and
   * write order); callers sort or filter what they get.
   */
  async selecting(side: PolicySide, roles: readonly string[]): Promise<ServicePolicy[]> {
    if (roles.length === 0) return [];
    const rows = await this.db.rows<DocumentRow>(
      `SELECT ${this.columns} FROM ${this.table}
       WHERE id IN (SELECT policy_id FROM policy_roles WHERE side = ? AND role = ANY(?::text[]))
       ORDER BY id`,
      [side, roles],
    );
    return rows.map((r) => this.fromRow(r));
  }

  /** Replaces the policy's roles, every side in one insert, inside the write's transaction. */
  protected override async mirror(policy: ServicePolicy): Promise<void> {
    await super.mirror(policy);
    await this.db.run(`DELETE FROM policy_roles WHERE policy_id = ?`, [policy.id]);
    const sides: string[] = [];
    const roles: string[] = [];
    for (const [side, field] of Object.entries(SIDES)) {
      for (const role of policy[field]) {
        sides.push(side);
        roles.push(role);
      }
    }
    if (roles.length === 0) return;
    await this.db.run(
      `INSERT INTO policy_roles (policy_id, side, role)
       SELECT ?, side, role FROM unnest(?::text[], ?::text[]) AS given(side, role) ON CONFLICT DO NOTHING`,
      [policy.id, sides, roles],
    );
  }

  protected override async unmirror(id: string): Promise<void> {
    await super.unmirror(id);
    await this.db.run(`DELETE FROM policy_roles WHERE policy_id = ?`, [id]);
  }
}
