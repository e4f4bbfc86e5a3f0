/**
 * The store as the routes see it. Routes depend only on these interfaces, so another backend (PostgreSQL)
 * can be added by implementing them; `sqlite-store.ts` is the one that ships.
 */
import type {
  ApiSession,
  AuthPolicy,
  Authenticator,
  CertAuthenticator,
  Config,
  ConfigType,
  EdgeRouter,
  EdgeRouterPolicy,
  Enrollment,
  Entity,
  Identity,
  PostureCheck,
  Service,
  ServiceEdgeRouterPolicy,
  ServicePolicy,
  UpdbAuthenticator,
} from '../model.js';
import type { PostureRepository } from '../posture/posture-repository.js';
import type { MfaRepository } from '../mfa/mfa-repository.js';

import type { Page } from './page.js';

export type { Page } from './page.js';

export interface ListQuery {
  limit: number;
  offset: number;
  /** exact name match */
  name?: string;
  /** case-insensitive substring of the name */
  nameContains?: string;
  /** an OpenZiti filter (`name contains "x" sort by name skip 0 limit 25`), for repositories that compile it */
  filter?: string;
}

export interface EntityRepository<T extends Entity> {
  list(query: ListQuery): Page<T>;
  get(id: string): T | undefined;
  getByName(name: string): T | undefined;
  /** `@x` roles may name an entity by id or by name */
  getByIdOrName(idOrName: string): T | undefined;
  getMany(ids: readonly string[]): T[];
  count(): number;
  create(entity: T): void;
  /** replaces the stored entity; false when it does not exist */
  update(entity: T): boolean;
  delete(id: string): boolean;
}

export interface AttributedRepository<T extends Entity> extends EntityRepository<T> {
  /** ids of entities carrying any of these attributes (without `#`) */
  idsWithAnyAttribute(attributes: readonly string[]): string[];
  /** every distinct attribute in use, sorted */
  attributes(): string[];
}

export type PolicySide = 'identity' | 'service' | 'postureCheck';

export interface ServicePolicyRepository extends EntityRepository<ServicePolicy> {
  /** policies whose `side` roles include any of `roles` (e.g. `#sales`, `@<id>`, `#all`) */
  selecting(side: PolicySide, roles: readonly string[]): ServicePolicy[];
}

export interface AuthenticatorRepository {
  get(id: string): Authenticator | undefined;
  getByUsername(username: string): UpdbAuthenticator | undefined;
  /** the `cert` authenticator whose certificate has this SHA-256 fingerprint (lowercase hex) */
  getByFingerprint(fingerprint: string): CertAuthenticator | undefined;
  /** whether any `cert` authenticator exists (their certificates need the controller CA that issued them) */
  hasCertAuthenticators(): boolean;
  listByIdentity(identityId: string): Authenticator[];
  list(query: ListQuery): Page<Authenticator>;
  create(authenticator: Authenticator): void;
  update(authenticator: Authenticator): boolean;
  delete(id: string): boolean;
  deleteByIdentity(identityId: string): void;
}

/**
 * Identity enrollments. "Outstanding" means not yet used (expired ones included: an administrator refreshes
 * them). Used ones are kept only to answer their token with "already used".
 */
export interface EnrollmentRepository {
  /** an outstanding enrollment; a used one is not found */
  get(id: string): Enrollment | undefined;
  /** any enrollment, used or not, with this token hash */
  getByTokenHash(tokenHash: string): Enrollment | undefined;
  listOutstanding(query: ListQuery & { identityId?: string }): Page<Enrollment>;
  /** the outstanding `updb` enrollment that promises this username, if any */
  pendingWithUsername(username: string): Enrollment | undefined;
  /** throws UniqueViolation('username') when a pending enrollment already promises the username */
  create(enrollment: Enrollment): void;
  /** a refresh: new nonce, token hash, issue and expiry times; false when not outstanding */
  update(enrollment: Enrollment): boolean;
  /** marks it used; false when it already was (or is gone): of two redemptions, exactly one gets true */
  /** spends the token: false when it was used, refreshed or expired meanwhile */
  markUsed(redeemed: Pick<Enrollment, 'id' | 'tokenHash'>, at: Date): boolean;
  delete(id: string): boolean;
}

export interface ApiSessionRepository {
  getByTokenHash(tokenHash: string): ApiSession | undefined;
  get(id: string): ApiSession | undefined;
  list(query: ListQuery): Page<ApiSession>;
  listByIdentity(identityId: string): ApiSession[];
  create(session: ApiSession, tokenHash: string): void;
  update(session: ApiSession): void;
  touch(id: string, at: Date): void;
  delete(id: string): boolean;
  /** removes sessions idle since before `cutoff`; returns what was removed */
  deleteIdleSince(cutoff: Date): { id: string; identityId: string }[];
}

export interface Store {
  identities: AttributedRepository<Identity>;
  services: AttributedRepository<Service>;
  postureChecks: AttributedRepository<PostureCheck>;
  servicePolicies: ServicePolicyRepository;
  authPolicies: EntityRepository<AuthPolicy>;
  configTypes: EntityRepository<ConfigType>;
  configs: EntityRepository<Config>;
  edgeRouters: AttributedRepository<EdgeRouter>;
  edgeRouterPolicies: EntityRepository<EdgeRouterPolicy>;
  serviceEdgeRouterPolicies: EntityRepository<ServiceEdgeRouterPolicy>;
  authenticators: AuthenticatorRepository;
  enrollments: EnrollmentRepository;
  apiSessions: ApiSessionRepository;
  posture: PostureRepository;
  mfa: MfaRepository;
  countIdentitiesWithAuthPolicy(authPolicyId: string): number;
  /** runs `fn` atomically: all of its writes land, or none */
  transaction<T>(fn: () => T): T;
  /** whether a transaction is open now (events wait for it to end) */
  inTransaction(): boolean;
  /**
   * Like `transaction`, but shares one commit (one fsync) with the other batches queued in the same turn
   * of the event loop; resolves once that commit is durable. For hot write paths under concurrent load.
   */
  batch<T>(fn: () => T): Promise<T>;
  close(): void;
}

/** Thrown by `create` when the name (or another unique field) is taken. */
export class UniqueViolation extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
  ) {
    super(`${field} must be unique`);
  }
}
