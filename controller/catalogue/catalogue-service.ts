/**
 * The catalogue's use cases, apart from HTTP: services, service policies and posture checks (what every
 * access decision reads, catalogue.ts). What a write must satisfy (a service's configs exist, one per type; a
 * policy's roles are well formed and its `@name` roles name something, stored as `@id`; a posture check's type
 * exists, never changes and its fields suit it), what a delete must release first (policies naming the entity
 * by `@id`), and the event every write raises: `policy.changed`, published once its transaction commits.
 *
 * The management routes read a request into a draft and hand it here; the CRUD kit (http/crud.ts) runs the
 * write's transaction and calls `prepare…`, `before…Delete` and `written` around it.
 */
import type { ControllerContext } from '../platform/context.js';
import type { PolicyType, Semantic, Service, ServicePolicy } from '../model.js';
import { POSTURE_CHECK_TYPES, type PostureCheck } from '../posture-model.js';
import { getCheckModule } from '../posture/checks/index.js';
import { postureTypeDescriptor } from '../../src/api/posture-types/index.js';
import { unknownNestedFields } from '../http/unknown-nested-fields.js';
import { parseEnforcement } from '../posture/enforcement-field.js';
import type { ParseMode } from '../posture/checks/check-module.js';
import { validationError, type FieldCause } from '../api-error.js';
import { normaliseAttributes, normaliseRoles } from './roles.js';
import { releasePolicyReferences } from './policy-references.js';
import { resolveServiceConfigs } from './configs/service-configs.js';

/** A service as a write asks for it; `configs` undefined: kept as stored, unchecked (a PATCH without them). */
export interface ServiceDraft {
  name: string;
  roleAttributes: readonly string[];
  configs: readonly string[] | undefined;
  encryptionRequired: boolean;
  terminatorStrategy: string;
  maxIdleTimeMillis: number;
  tags: Record<string, unknown>;
}

/** A service policy as a write asks for it; a role list undefined is kept as stored (a PATCH without it). */
export interface ServicePolicyDraft {
  name: string;
  type: PolicyType;
  semantic: Semantic;
  identityRoles: readonly string[] | undefined;
  serviceRoles: readonly string[] | undefined;
  postureCheckRoles: readonly string[] | undefined;
  tags: Record<string, unknown>;
}

/**
 * A posture check as a write asks for it. Its type's own fields are read by the type's module
 * (posture/checks/*) from `fields`, the write as sent, under `mode` (a PATCH keeps what it leaves out).
 */
export interface PostureCheckDraft {
  /** as sent; undefined keeps the stored one */
  typeId: string | undefined;
  /** undefined: none given (an MFA check gets one) */
  name: string | undefined;
  roleAttributes: readonly string[];
  remediation: string | null;
  tags: Record<string, unknown>;
  fields: Record<string, unknown>;
  mode: ParseMode;
}

type RoleField = 'identityRoles' | 'serviceRoles' | 'postureCheckRoles';

export class CatalogueService {
  constructor(private readonly ctx: ControllerContext) {}

  /** After any write to services, service policies or posture checks, in its transaction. */
  written(): void {
    this.ctx.events.emit('policy.changed');
  }

  /** Checks a service write and answers the service to store; a 400 naming `configs[i]` otherwise. */
  async prepareService(
    draft: ServiceDraft,
    existing: Service | undefined,
    id: string,
    now: Date,
  ): Promise<Service> {
    const problems: FieldCause[] = [];
    const configs =
      draft.configs === undefined
        ? (existing?.configs ?? [])
        : await resolveServiceConfigs(this.ctx.store, draft.configs, problems);
    if (problems.length) throw validationError(problems);
    return {
      id,
      configs,
      name: draft.name,
      roleAttributes: normaliseAttributes(draft.roleAttributes),
      encryptionRequired: draft.encryptionRequired,
      terminatorStrategy: draft.terminatorStrategy,
      maxIdleTimeMillis: draft.maxIdleTimeMillis,
      tags: draft.tags,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
  }

  /** Before a service's delete, in its transaction: policies naming it refuse it (409) or, cascading, drop it. */
  async beforeServiceDelete(service: Service, { cascade }: { cascade: boolean }): Promise<void> {
    await releasePolicyReferences(this.ctx, 'service', service, 'service', cascade);
  }

  /** Checks a service policy write (its roles) and answers the policy to store; a 400 naming each bad role. */
  async preparePolicy(
    draft: ServicePolicyDraft,
    existing: ServicePolicy | undefined,
    id: string,
    now: Date,
  ): Promise<ServicePolicy> {
    const { identities, services, postureChecks } = this.ctx.store;
    const problems: FieldCause[] = [];
    const roles = (field: RoleField, repo: Parameters<typeof normaliseRoles>[2]) => {
      const asked = draft[field];
      return asked === undefined ? (existing?.[field] ?? []) : normaliseRoles(asked, field, repo, problems);
    };
    const policy: ServicePolicy = {
      id,
      name: draft.name,
      type: draft.type,
      semantic: draft.semantic,
      identityRoles: await roles('identityRoles', identities),
      serviceRoles: await roles('serviceRoles', services),
      postureCheckRoles: await roles('postureCheckRoles', postureChecks),
      tags: draft.tags,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    if (problems.length) throw validationError(problems);
    return policy;
  }

  /**
   * Checks a posture check write and answers the check to store (its version one more than the stored one's);
   * a 400 naming the field otherwise. The type's own fields are checked by its module, which names them.
   */
  preparePostureCheck(
    draft: PostureCheckDraft,
    existing: PostureCheck | undefined,
    id: string,
    now: Date,
  ): PostureCheck {
    const typeId = draft.typeId ?? existing?.typeId;
    const module = typeId === undefined ? undefined : getCheckModule(typeId);
    if (!module) {
      throw validationError([
        {
          field: 'typeId',
          reason: `must be one of ${POSTURE_CHECK_TYPES.join(', ')}`,
          value: draft.typeId ?? null,
        },
      ]);
    }
    if (existing && typeId !== existing.typeId) {
      throw validationError([
        { field: 'typeId', reason: `a ${existing.typeId} check cannot change its type`, value: typeId },
      ]);
    }
    const problems: FieldCause[] = [];
    const parsed = module.parse(draft.fields, draft.mode, existing as never);
    if (!parsed.ok) problems.push(...parsed.problems);
    // Inside the type's own fields, a field its schema does not have is refused like one beside them.
    for (const option of postureTypeDescriptor(typeId!)?.optionFields ?? [])
      if (draft.fields[option.name] !== undefined)
        problems.push(...unknownNestedFields(option.schema, draft.fields[option.name], option.name));
    // The same on every type, so read here rather than by each type's module.
    const enforcement = parseEnforcement(draft.fields, draft.mode, existing?.enforcement, problems);
    let name = draft.name;
    if (name === undefined) {
      // OpenZiti requires a name; Postern's documented MFA example has none, so MFA checks get one.
      if (typeId === 'MFA') name = `MFA check ${id.slice(0, 8)}`;
      else problems.push({ field: 'name', reason: 'is required' });
    }
    if (problems.length || !parsed.ok) throw validationError(problems);
    return {
      ...parsed.spec,
      id,
      name: name!,
      typeId,
      enforcement,
      roleAttributes: normaliseAttributes(draft.roleAttributes),
      tags: draft.tags,
      // An empty text is no advice: stored as none, so the user never sees a blank line.
      remediation: draft.remediation?.trim() || null,
      version: (existing?.version ?? 0) + 1,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    } as PostureCheck;
  }

  /** Before a check's delete, in its transaction: policies naming it refuse it (409) or, cascading, drop it. */
  async beforePostureCheckDelete(check: PostureCheck, { cascade }: { cascade: boolean }): Promise<void> {
    await releasePolicyReferences(this.ctx, 'postureCheck', check, 'posture check', cascade);
  }
}
