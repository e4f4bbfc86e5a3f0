/**
 * The part of the store every access decision reads: services, service policies, posture checks and their
 * exceptions, with
 * the indexes the resolver needs (policies by role, entities by attribute). Small next to identities, so it
 * is held whole in memory and read synchronously; it is rebuilt when the store's `catalogueVersion` moves
 * (a write to one of these kinds here, or, with several instances, a change announced by another).
 */
import type { Service, ServicePolicy } from '../model.js';
import type { PolicySide, Store } from '../store/repository.js';
import type { PostureCheck } from '../posture-model.js';
import type { PostureCheckException } from '../posture-exception-model.js';
import { rolesOf } from './role-match.js';

type Attributed = { id: string; roleAttributes: string[] };

/** Entities of one kind by id, and their ids by attribute. */
export class AttributedSet<T extends Attributed> {
  readonly byId = new Map<string, T>();
  private readonly byAttribute = new Map<string, string[]>();

  constructor(readonly all: readonly T[]) {
    for (const entity of all) {
      this.byId.set(entity.id, entity);
      for (const attribute of entity.roleAttributes ?? []) {
        const ids = this.byAttribute.get(attribute);
        if (ids) ids.push(entity.id);
        else this.byAttribute.set(attribute, [entity.id]);
      }
    }
  }

  idsWithAnyAttribute(attributes: readonly string[]): string[] {
    return attributes.flatMap((a) => this.byAttribute.get(a) ?? []);
  }
}

const SIDES: Record<PolicySide, 'identityRoles' | 'serviceRoles' | 'postureCheckRoles'> = {
  identity: 'identityRoles',
  service: 'serviceRoles',
  postureCheck: 'postureCheckRoles',
};

export class Catalogue {
  readonly services: AttributedSet<Service>;
  readonly postureChecks: AttributedSet<PostureCheck>;
  readonly policies: ReadonlyMap<string, ServicePolicy>;
  private readonly policiesByRole = new Map<string, ServicePolicy[]>();
  /** posture check exceptions by the identity id or the role (`#attr`, `@id`, `#all`) they name */
  private readonly exceptionsByTarget = new Map<string, PostureCheckException[]>();

  constructor(
    services: readonly Service[],
    checks: readonly PostureCheck[],
    policies: readonly ServicePolicy[],
    /** every exception, kept for a changed copy (`withPostureCheck`, `withPolicy`) */
    private readonly exceptions: readonly PostureCheckException[] = [],
  ) {
    for (const exception of exceptions) {
      const targets = exception.identityId !== null ? [`@${exception.identityId}`] : exception.identityRoles;
      for (const target of new Set(targets ?? [])) {
        const list = this.exceptionsByTarget.get(target);
        if (list) list.push(exception);
        else this.exceptionsByTarget.set(target, [exception]);
      }
    }
    this.services = new AttributedSet(services);
    this.postureChecks = new AttributedSet(checks);
    this.policies = new Map(policies.map((p) => [p.id, p]));
    for (const policy of policies)
      for (const [side, field] of Object.entries(SIDES))
        for (const role of new Set(policy[field])) {
          const key = `${side} ${role}`;
          const list = this.policiesByRole.get(key);
          if (list) list.push(policy);
          else this.policiesByRole.set(key, [policy]);
        }
  }

  static async load(store: Store): Promise<Catalogue> {
    const all = async <T>(repo: {
      count(): Promise<number>;
      list(q: { limit: number; offset: number }): Promise<{ items: T[] }>;
    }) => (await repo.list({ limit: Math.max(await repo.count(), 1), offset: 0 })).items;
    const [services, checks, policies, exceptions] = await Promise.all([
      all(store.services),
      all(store.postureChecks),
      all(store.servicePolicies),
      // Expired ones too: whether one still applies is decided at each evaluation's own time.
      all(store.postureCheckExceptions),
    ]);
    return new Catalogue(services, checks as PostureCheck[], policies, exceptions);
  }

  /** The exceptions naming the identity, by id or by any role it answers to (expired ones included). */
  exceptionsOf(identityId: string, attributes: readonly string[]): PostureCheckException[] {
    const found = new Set<PostureCheckException>();
    for (const role of rolesOf(identityId, attributes))
      for (const exception of this.exceptionsByTarget.get(role) ?? []) found.add(exception);
    return [...found];
  }

  /**
   * This catalogue with one posture check put in (added, or replacing the one of its id) or, given null,
   * removed: what a write of it would make, held only in memory (an impact preview, access/preview/).
   */
  withPostureCheck(id: string, check: PostureCheck | null): Catalogue {
    return new Catalogue(
      this.services.all,
      replaced(this.postureChecks.all, id, check),
      [...this.policies.values()],
      this.exceptions,
    );
  }

  /** The same for a service policy. */
  withPolicy(id: string, policy: ServicePolicy | null): Catalogue {
    return new Catalogue(
      this.services.all,
      this.postureChecks.all,
      replaced([...this.policies.values()], id, policy),
      this.exceptions,
    );
  }

  /** Policies whose `side` roles include any of `roles` (each once). */
  selecting(side: PolicySide, roles: readonly string[]): ServicePolicy[] {
    const found = new Map<string, ServicePolicy>();
    for (const role of roles)
      for (const p of this.policiesByRole.get(`${side} ${role}`) ?? []) found.set(p.id, p);
    return [...found.values()];
  }
}

/** `all` with the entity of `id` replaced by `entity` (appended when new), or dropped when it is null. */
function replaced<T extends { id: string }>(all: readonly T[], id: string, entity: T | null): T[] {
  const others = all.filter((e) => e.id !== id);
  return entity ? [...others, entity] : others;
}

/** The newest catalogue of each store, rebuilt only when its version has moved since. */
const current = new WeakMap<Store, { version: number; catalogue: Promise<Catalogue>; loaded: boolean }>();

/**
 * The store's catalogue now. A caller inside a transaction never waits for a load another caller started:
 * that load needs the store (a connection from the pool, or SQLite's lock) which this transaction may be
 * holding, and the two would wait for each other for ever. It uses a loaded catalogue or loads its own, inside
 * its transaction.
 */
export function catalogueOf(store: Store): Promise<Catalogue> {
  const version = store.catalogueVersion();
  const held = current.get(store);
  if (held && held.version === version && (held.loaded || !store.inTransaction())) return held.catalogue;
  const catalogue = Catalogue.load(store);
  const entry = { version, catalogue, loaded: false };
  current.set(store, entry);
  catalogue.then(
    () => (entry.loaded = true),
    // A failed load must not be served to the next caller.
    () => current.get(store) === entry && current.delete(store),
  );
  return catalogue;
}
