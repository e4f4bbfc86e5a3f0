/**
 * How each entity kind is stored, the same on every backend: its table, whether its role attributes are
 * indexed (and under which kind name), how a stored document is revived, and which document fields an
 * OpenZiti filter may name besides the common ones (id, name, createdAt, updatedAt, roleAttributes).
 */
import type { FilterField } from './filter/index.js';
import type { Entity, Service } from '../model.js';
import type { Enforcement, PostureCheck } from '../posture-model.js';
import type { ExceptionHistoryEntry, PostureCheckException } from '../posture-exception-model.js';
import type { RecordedCheckState } from '../check-state-model.js';
import type { AuditEvent } from '../audit/audit-model.js';
import type { Webhook } from '../event-delivery-model.js';

const reviveEnforcement = (doc: Record<string, unknown>): Partial<PostureCheck> => {
  const stored = doc.enforcement as { mode: Enforcement['mode']; enforceFrom: string | null } | undefined;
  if (!stored) return {};
  return {
    enforcement: {
      mode: stored.mode,
      enforceFrom: stored.enforceFrom === null ? null : new Date(stored.enforceFrom),
    },
  };
};

export interface EntityKind<T extends Entity = Entity> {
  table: string;
  /** the kind's name in `role_attributes`; null: its role attributes are not indexed */
  roleKind: string | null;
  /** fills in what older stored documents lack */
  revive?: (doc: Record<string, unknown>) => Partial<T>;
  /** `docKey`: the document's field when the filter names it otherwise */
  filterExtras?: readonly [name: string, type: FilterField['type'], docKey?: string][];
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
  // OpenZiti filters configs by their type's id as `type = "<id>"` (ZAC does); `configTypeId` names the same.
  configs: kind({
    table: 'configs',
    roleKind: null,
    filterExtras: [
      ['type', 'string', 'configTypeId'],
      ['configTypeId', 'string'],
    ],
  }),
  edgeRouters: kind({ table: 'edge_routers', roleKind: 'edgeRouter' }),
  edgeRouterPolicies: kind({ table: 'edge_router_policies', roleKind: null }),
  serviceEdgeRouterPolicies: kind({ table: 'service_edge_router_policies', roleKind: null }),
  // A warn check's deadline is a date in the document (JSON has none).
  postureChecks: kind<PostureCheck>({
    table: 'posture_checks',
    roleKind: 'postureCheck',
    revive: (doc) => reviveEnforcement(doc),
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
  externalJwtSigners: kind({
    table: 'external_jwt_signers',
    roleKind: null,
    filterExtras: [
      ['issuer', 'string'],
      ['enabled', 'boolean'],
    ],
  }),
  // Posture check exceptions and their history (posture-exception-model.ts): their deadline is a date in the document.
  postureCheckExceptions: kind<PostureCheckException>({
    table: 'posture_check_exceptions',
    roleKind: null,
    revive: (doc) => ({ expiresAt: new Date(doc.expiresAt as string) }),
    filterExtras: [
      ['identityId', 'string'],
      ['postureCheckId', 'string'],
      ['expiresAt', 'datetime'],
      ['reason', 'string'],
    ],
  }),
  postureCheckExceptionHistory: kind<ExceptionHistoryEntry>({
    table: 'posture_check_exception_history',
    roleKind: null,
    revive: (doc) => ({ expiresAt: new Date(doc.expiresAt as string) }),
    filterExtras: [
      ['exceptionId', 'string'],
      ['action', 'string'],
    ],
  }),
  postureCheckStates: kind<RecordedCheckState>({
    table: 'posture_check_states',
    roleKind: null,
    revive: (doc) => ({ since: new Date(doc.since as string) }),
    filterExtras: [
      ['identityId', 'string'],
      ['postureCheckId', 'string'],
      ['state', 'string'],
      ['since', 'datetime'],
    ],
  }),
  // The audit trail (audit/audit-model.ts); createdAt is the event's moment.
  auditEvents: kind<AuditEvent>({
    table: 'audit_events',
    roleKind: null,
    filterExtras: [
      ['type', 'string'],
      ['actorId', 'string'],
      ['address', 'string'],
      ['identityId', 'string'],
      ['serviceId', 'string'],
      ['reference', 'string'],
    ],
  }),
  // Webhook subscriptions (events/delivery/): the secret stays in the document, never on the wire.
  webhooks: kind<Webhook>({
    table: 'webhooks',
    roleKind: null,
    filterExtras: [
      ['url', 'string'],
      ['enabled', 'boolean'],
    ],
  }),
} as const;
