/**
 * The store as the controller sees it. Repositories are described synchronously (`Sync…`, what the in-process
 * SQLite backend implements) and used through their asynchronous face (`Async<…>`, store/async.ts), which every
 * backend offers: SQLite through `sqlite-store.ts`, PostgreSQL through its own repositories.
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
  ExternalJwtSigner,
  Identity,
  PostureCheck,
  Service,
  ServiceEdgeRouterPolicy,
  ServicePolicy,
  UpdbAuthenticator,
} from '../model.js';
import type { SyncPostureRepository } from './posture-repository.js';
import type { SyncMfaRepository } from './mfa-repository.js';
import type { SyncDeadlineRepository } from './deadline-repository.js';
import type { Async } from './async.js';
import type { ExceptionHistoryEntry, PostureCheckException } from '../posture-exception-model.js';
import type { RecordedCheckState } from '../check-state-model.js';
import type { ListQuery, Page } from './page.js';
import type { AuditEvent } from '../audit/audit-model.js';
import type { SyncDeliveryRepository } from './delivery-repository.js';
import type { Webhook } from '../event-delivery-model.js';

export type { ListQuery, Page };

export interface SyncEntityRepository<T extends Entity> {
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

export interface SyncAttributedRepository<T extends Entity> extends SyncEntityRepository<T> {
  /** ids of entities carrying any of these attributes (without `#`) */
  idsWithAnyAttribute(attributes: readonly string[]): string[];
  /** every distinct attribute in use, sorted */
  attributes(): string[];
}

export type PolicySide = 'identity' | 'service' | 'postureCheck';

export interface SyncServicePolicyRepository extends SyncEntityRepository<ServicePolicy> {
  /** policies whose `side` roles include any of `roles` (e.g. `#sales`, `@<id>`, `#all`) */
  selecting(side: PolicySide, roles: readonly string[]): ServicePolicy[];
}

export interface SyncAuthenticatorRepository {
  get(id: string): Authenticator | undefined;
  getByUsername(username: string): UpdbAuthenticator | undefined;
  /** the `cert` authenticator whose certificate has this SHA-256 fingerprint (lowercase hex) */
  getByFingerprint(fingerprint: string): CertAuthenticator | undefined;
  /** whether any `cert` authenticator exists (their certificates need the controller CA that issued them) */
  hasCertAuthenticators(): boolean;
  listByIdentity(identityId: string): Authenticator[];
  /**
   * Every authenticator of these identities in one read (for a page of identities): by identity id, and each
   * identity's in `listByIdentity`'s order. None, without a read, for an empty list.
   */
  listByIdentities(identityIds: readonly string[]): Authenticator[];
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
export interface SyncEnrollmentRepository {
  /** an outstanding enrollment; a used one is not found */
  get(id: string): Enrollment | undefined;
  /** any enrollment, used or not, with this token hash */
  getByTokenHash(tokenHash: string): Enrollment | undefined;
  listOutstanding(query: ListQuery & { identityId?: string }): Page<Enrollment>;
  /**
   * The outstanding enrollments of these identities in one read (for a page of identities): by identity id, and
   * of each identity the first `perIdentity` that `listOutstanding` with its `identityId` answers, in that
   * order. None, without a read, for an empty list.
   */
  listOutstandingByIdentities(identityIds: readonly string[], perIdentity: number): Enrollment[];
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

export interface SyncApiSessionRepository {
  getByTokenHash(tokenHash: string): ApiSession | undefined;
  get(id: string): ApiSession | undefined;
  list(query: ListQuery): Page<ApiSession>;
  listByIdentity(identityId: string): ApiSession[];
  /** the sessions an authenticator (or an external JWT signer) opened, oldest first */
  listByAuthenticator(authenticatorId: string): ApiSession[];
  /**
   * Every session of these identities in one read (for a page of identities): by identity id, and each
   * identity's in `listByIdentity`'s order (oldest first). None, without a read, for an empty list.
   */
  listByIdentities(identityIds: readonly string[]): ApiSession[];
  create(session: ApiSession, tokenHash: string): void;
  update(session: ApiSession): void;
  touch(id: string, at: Date): void;
  delete(id: string): boolean;
  /** removes sessions idle since before `cutoff`; returns what was removed */
  deleteIdleSince(cutoff: Date): { id: string; identityId: string }[];
}

/** Every repository of a backend, in its synchronous description (see async.ts). */
export interface SyncRepositories {
  identities: SyncAttributedRepository<Identity>;
  services: SyncAttributedRepository<Service>;
  postureChecks: SyncAttributedRepository<PostureCheck>;
  servicePolicies: SyncServicePolicyRepository;
  authPolicies: SyncEntityRepository<AuthPolicy>;
  configTypes: SyncEntityRepository<ConfigType>;
  configs: SyncEntityRepository<Config>;
  edgeRouters: SyncAttributedRepository<EdgeRouter>;
  edgeRouterPolicies: SyncEntityRepository<EdgeRouterPolicy>;
  serviceEdgeRouterPolicies: SyncEntityRepository<ServiceEdgeRouterPolicy>;
  authenticators: SyncAuthenticatorRepository;
  enrollments: SyncEnrollmentRepository;
  apiSessions: SyncApiSessionRepository;
  posture: SyncPostureRepository;
  mfa: SyncMfaRepository;
  /** deadlines another instance takes over if their owner stops (deadline-repository.ts) */
  deadlines: SyncDeadlineRepository;
  /** posture check exceptions (read with the catalogue) and their history (posture-exception-model.ts) */
  postureCheckExceptions: SyncEntityRepository<PostureCheckException>;
  postureCheckExceptionHistory: SyncEntityRepository<ExceptionHistoryEntry>;
  /** each identity's latest state per posture check (check-state-model.ts) */
  postureCheckStates: SyncEntityRepository<RecordedCheckState>;
  /** the audit trail (audit/audit-trail.ts writes it) */
  auditEvents: SyncEntityRepository<AuditEvent>;
  /** webhook subscriptions and the durable event delivery queue (events/delivery/) */
  webhooks: SyncEntityRepository<Webhook>;
  deliveries: SyncDeliveryRepository;
  countIdentitiesWithAuthPolicy(authPolicyId: string): number;
  /** OpenID providers whose tokens sign identities in */
  externalJwtSigners: SyncEntityRepository<ExternalJwtSigner>;
  /** the identity another identity provider knows by this subject (unique: migrations 18 / pg 13) */
  identityByExternalId(externalId: string): Identity | undefined;
}

export type EntityRepository<T extends Entity> = Async<SyncEntityRepository<T>>;
export type AttributedRepository<T extends Entity> = Async<SyncAttributedRepository<T>>;
export type ServicePolicyRepository = Async<SyncServicePolicyRepository>;
export type AuthenticatorRepository = Async<SyncAuthenticatorRepository>;
export type EnrollmentRepository = Async<SyncEnrollmentRepository>;
export type ApiSessionRepository = Async<SyncApiSessionRepository>;

/**
 * The store as the controller sees it: every read and write answers a promise, and transactions are explicit.
 * Code running inside `transaction(fn)` (however deep, across awaits) reads and writes inside it; other callers
 * wait for it or, on a backend with several connections, do not see its writes until it commits.
 */
export interface Store extends Async<SyncRepositories> {
  /** which backend this is (`sqlite`, `postgres`), for logs and the bench */
  readonly backend: string;
  /** this controller instance among those sharing the database (a deadline's owner, a NOTIFY's sender) */
  readonly instanceId: string;
  /** runs `fn` atomically: all of its writes land, or none; nested calls join the outer transaction */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Like `transaction`, but may share one commit (one fsync) with other batches queued in the same turn of
   * the event loop; resolves once that commit is durable. For hot write paths under concurrent load.
   */
  batch<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Moves whenever services, service policies or posture checks may have changed (a write here, a rollback,
   * or another instance's change): what the access catalogue is rebuilt on (catalogue/catalogue.ts).
   */
  catalogueVersion(): number;
  /** whether the caller runs inside a transaction now */
  inTransaction(): boolean;
  /**
   * Inside a transaction: queues `fn` to run once the outermost transaction has committed (dropped when it
   * rolls back), and `transaction` resolves only after it settled; answers true. Outside: answers false.
   */
  afterCommit(fn: () => unknown): boolean;
  /**
   * Inside a transaction: waits until no other transaction holding `key` is open, and holds it until this one
   * ends, so a check and the write that depends on it ("no password login yet", then create one) are one
   * step for everyone using the same key. SQLite's write lock already makes every transaction one step;
   * PostgreSQL takes a transaction-level advisory lock on the key (several instances included).
   */
  serializeOn(key: string): Promise<void>;
  close(): Promise<void>;
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
