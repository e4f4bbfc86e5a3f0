/**
 * How each entity kind is stored, the same on every backend: its table, whether its role attributes are
 * indexed (and under which kind name), how a stored document is revived, and which document fields an
 * OpenZiti filter may name besides the common ones (id, name, createdAt, updatedAt, roleAttributes).
 */
import type { FilterField } from './filter/index.js';
import type { Entity, Service } from '../model.js';

export interface EntityKind<T extends Entity = Entity> {
  table: string;
  /** the kind's name in `role_attributes`; null: its role attributes are not indexed */
  roleKind: string | null;
  /** fills in what older stored documents lack */
  revive?: (doc: Record<string, unknown>) => Partial<T>;
  filterExtras?: readonly [name: string, type: FilterField['type']][];
}

const kind = <T extends Entity>(k: EntityKind<T>) => k;

export const ENTITY_KINDS = {
  identities: kind({
    table: 'identities',
    roleKind: 'identity',
    filterExtras: [
      ['isAdmin', 'boolean'],
      ['isDefaultAdmin', 'boolean'],
      ['disabled', 'boolean'],
      ['type', 'string'],
      ['externalId', 'string'],
      ['authPolicyId', 'string'],
    ],
  }),
  // Services stored before configs existed have none.
  services: kind<Service>({
    table: 'services',
    roleKind: 'service',
    revive: (doc) => ({ configs: (doc.configs as string[]) ?? [] }),
    filterExtras: [['encryptionRequired', 'boolean']],
  }),
  configTypes: kind({ table: 'config_types', roleKind: null }),
  configs: kind({ table: 'configs', roleKind: null }),
  edgeRouters: kind({ table: 'edge_routers', roleKind: 'edgeRouter' }),
  edgeRouterPolicies: kind({ table: 'edge_router_policies', roleKind: null }),
  serviceEdgeRouterPolicies: kind({ table: 'service_edge_router_policies', roleKind: null }),
  postureChecks: kind({
    table: 'posture_checks',
    roleKind: 'postureCheck',
    filterExtras: [['typeId', 'string']],
  }),
  servicePolicies: kind({
    table: 'service_policies',
    roleKind: null,
    filterExtras: [
      ['type', 'string'],
      ['semantic', 'string'],
    ],
  }),
  authPolicies: kind({ table: 'auth_policies', roleKind: null }),
} as const;
