/**
 * Who can reach what, through the catalogue's role indexes: identity → the roles it answers to (`#attr`, `@id`,
 * `#all`) → the policies naming one of them → their service and posture check roles → the entities carrying
 * those attributes. Nothing here scans every policy or identity, so the cost for one identity does not grow
 * with the number of others. Synchronous: the catalogue is in memory (catalogue.ts); only `identitiesOf`
 * reads the store.
 *
 * One resolver lives for one request or one evaluation pass and caches what it has derived; it must not
 * outlive it, because the catalogue may change in between.
 */
import type { Entity, Identity, Semantic, Service, ServicePolicy } from '../../model.js';
import type { AttributedRepository, Store } from '../../store/repository.js';
import { catalogueOf, type AttributedSet, type Catalogue } from '../../catalogue/catalogue.js';
import type { PostureCheck } from '../../posture-model.js';
import { ALL_ROLE, attributeRoles, idRoles, roleSelects, rolesOf } from '../../catalogue/role-match.js';

/** A service the identity can reach, with every policy of the identity that selects it (Dial and Bind). */
export interface ServiceGrant {
  service: Service;
  policies: ServicePolicy[];
}

type Attributed = Entity & { roleAttributes: string[] };

const byName = <T extends { name: string; id: string }>(a: T, b: T) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export class AccessResolver {
  private readonly policiesByIdentity = new Map<string, ServicePolicy[]>();
  private readonly checksByPolicy = new Map<string, PostureCheck[]>();
  private readonly servicesByPolicy = new Map<string, Service[]>();
  private readonly serviceIdsByPolicy = new Map<string, ReadonlySet<string>>();
  private readonly everything = new Map<string, unknown[]>();

  constructor(private readonly catalogue: Catalogue) {}

  /** What the answers derive from: the same object for every resolver over an unchanged catalogue. */
  get basis(): object {
    return this.catalogue;
  }

  /** A resolver over the store's current catalogue. */
  static async of(store: Store): Promise<AccessResolver> {
    return new AccessResolver(await catalogueOf(store));
  }

  /** The service policies that select the identity, sorted by name. */
  policiesOf(identity: Identity): ServicePolicy[] {
    let policies = this.policiesByIdentity.get(identity.id);
    if (!policies) {
      const candidates = this.catalogue.selecting('identity', rolesOf(identity.id, identity.roleAttributes));
      policies = candidates
        .filter((p) => roleSelects(p.semantic, p.identityRoles, identity.id, identity.roleAttributes))
        .sort(byName);
      this.policiesByIdentity.set(identity.id, policies);
    }
    return policies;
  }

  /** The identities a policy selects (by its `identityRoles`): read from the store, which holds them. */
  identitiesOf(policy: ServicePolicy, identities: AttributedRepository<Identity>): Promise<Identity[]> {
    return this.identitiesOfAny([policy], identities);
  }

  /** The identities any of the policies selects, each once, sorted by name: one read for all the policies. */
  async identitiesOfAny(
    policies: readonly ServicePolicy[],
    identities: AttributedRepository<Identity>,
  ): Promise<Identity[]> {
    if (policies.length === 0) return [];
    const roles = policies.flatMap((p) => p.identityRoles);
    const found = roles.includes(ALL_ROLE)
      ? (await identities.list({ limit: Math.max(await identities.count(), 1), offset: 0 })).items
      : await identities.getMany([
          ...new Set([...idRoles(roles), ...(await identities.idsWithAnyAttribute(attributeRoles(roles)))]),
        ]);
    return found
      .filter((e) => policies.some((p) => roleSelects(p.semantic, p.identityRoles, e.id, e.roleAttributes)))
      .sort(byName);
  }

  /** The service policies that select the service, sorted by name. */
  policiesSelecting(service: Service): ServicePolicy[] {
    return this.catalogue
      .selecting('service', rolesOf(service.id, service.roleAttributes))
      .filter((p) => roleSelects(p.semantic, p.serviceRoles, service.id, service.roleAttributes))
      .sort(byName);
  }

  /** The service policies that require the check (select it by their `postureCheckRoles`), sorted by name. */
  policiesRequiring(check: PostureCheck): ServicePolicy[] {
    return this.catalogue
      .selecting('postureCheck', rolesOf(check.id, check.roleAttributes))
      .filter((p) => roleSelects(p.semantic, p.postureCheckRoles, check.id, check.roleAttributes))
      .sort(byName);
  }

  /** The posture checks a policy requires (selected by its `postureCheckRoles`). */
  checksOf(policy: ServicePolicy): PostureCheck[] {
    let checks = this.checksByPolicy.get(policy.id);
    if (!checks) {
      checks = this.select(
        this.catalogue.postureChecks,
        'postureChecks',
        policy.semantic,
        policy.postureCheckRoles,
      );
      this.checksByPolicy.set(policy.id, checks);
    }
    return checks;
  }

  /** The services a policy selects (by its `serviceRoles`). */
  servicesOf(policy: ServicePolicy): Service[] {
    let services = this.servicesByPolicy.get(policy.id);
    if (!services) {
      services = this.select(this.catalogue.services, 'services', policy.semantic, policy.serviceRoles);
      this.servicesByPolicy.set(policy.id, services);
    }
    return services;
  }

  /** `servicesOf` as a set of ids: membership for a caller asking about thousands of pairs. */
  serviceIdsOf(policy: ServicePolicy): ReadonlySet<string> {
    let ids = this.serviceIdsByPolicy.get(policy.id);
    if (!ids)
      this.serviceIdsByPolicy.set(policy.id, (ids = new Set(this.servicesOf(policy).map((s) => s.id))));
    return ids;
  }

  service(id: string): Service | undefined {
    return this.catalogue.services.byId.get(id);
  }

  selectsService(policy: ServicePolicy, service: Service): boolean {
    return roleSelects(policy.semantic, policy.serviceRoles, service.id, service.roleAttributes);
  }

  /** The identity's policies that select the service; only those of `type` when given. */
  policiesFor(identity: Identity, service: Service, type?: ServicePolicy['type']): ServicePolicy[] {
    return this.policiesOf(identity).filter(
      (p) => (!type || p.type === type) && this.selectsService(p, service),
    );
  }

  /** Every service the identity can Dial or Bind by some policy, sorted by name. */
  grantsOf(identity: Identity): ServiceGrant[] {
    const grants = new Map<string, ServiceGrant>();
    for (const policy of this.policiesOf(identity)) {
      for (const service of this.servicesOf(policy)) {
        const grant = grants.get(service.id) ?? { service, policies: [] };
        grant.policies.push(policy);
        grants.set(service.id, grant);
      }
    }
    return [...grants.values()].sort((a, b) => byName(a.service, b.service));
  }

  /**
   * When the last active exception letting the identity through this check (or every check) expires, or null
   * when none does at `now`.
   */
  exceptionUntil(identity: Pick<Identity, 'id' | 'roleAttributes'>, checkId: string, now: Date): Date | null {
    let until: Date | null = null;
    for (const e of this.catalogue.exceptionsOf(identity.id, identity.roleAttributes)) {
      if (e.postureCheckId !== null && e.postureCheckId !== checkId) continue;
      if (e.expiresAt.getTime() <= now.getTime()) continue;
      if (!until || e.expiresAt.getTime() > until.getTime()) until = e.expiresAt;
    }
    return until;
  }

  /** OpenZiti shows placeholder query sets on every service while no posture check exists at all. */
  anyPostureChecks(): boolean {
    return this.catalogue.postureChecks.all.length > 0;
  }

  private select<T extends Attributed>(
    set: AttributedSet<T>,
    kind: string,
    semantic: Semantic,
    roles: readonly string[],
  ): T[] {
    if (roles.includes(ALL_ROLE)) return this.all(set, kind);
    const ids = new Set([...idRoles(roles), ...set.idsWithAnyAttribute(attributeRoles(roles))]);
    return [...ids]
      .map((id) => set.byId.get(id))
      .filter((e): e is T => e !== undefined && roleSelects(semantic, roles, e.id, e.roleAttributes))
      .sort(byName);
  }

  /** `#all`: every entity of the kind, sorted once per resolver. */
  private all<T extends Attributed>(set: AttributedSet<T>, kind: string): T[] {
    let items = this.everything.get(kind) as T[] | undefined;
    if (!items) {
      items = [...set.all].sort(byName);
      this.everything.set(kind, items);
    }
    return items;
  }
}
