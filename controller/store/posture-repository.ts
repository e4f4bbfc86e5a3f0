/**
 * Storage of posture evaluation's state: what devices reported, the sessions posture grants, failed session
 * requests and when an identity's service access last changed. Routes and the engine see only these
 * interfaces; `store/sqlite/posture-repository.ts` is the shipped implementation.
 *
 * Everything here is keyed by identity or API session ids without foreign keys: the posture engine removes
 * rows on the controller's `apiSession.deleted` / `identity.deleted` events and sweeps orphans at start.
 */
import type { PolicyType } from '../model.js';
import type { Async } from './async.js';
import type { ListQuery, Page } from './page.js';
import type {
  ApiSessionPostureData,
  DomainData,
  MacData,
  OsData,
  PostureSnapshot,
  ProcessData,
  ReportedFactData,
  SnapshotParts,
} from '../posture-model.js';

/** The API-session half of posture data; only the fields given are written. */
export type ApiSessionPatch = Partial<
  Pick<ApiSessionPostureData, 'mfaPassedAt' | 'wokenAt' | 'unlockedAt' | 'sdkInfo'>
>;

/** One stored fact of an identity: an OpenZiti fact kind, one binary's report, or a described type's fact. */
export type FactSlotRef =
  { kind: 'os' | 'mac' | 'domain' } | { kind: 'process'; path: string } | { kind: 'fact'; typeId: string };

export interface SyncPostureDataRepository {
  /** Everything known about the identity's device(s) and API sessions; empty slots when nothing was reported. */
  load(identityId: string): PostureSnapshot;
  /**
   * `load` for many identities at once (an impact preview reads thousands): the same snapshots, keyed by
   * identity, in a few queries instead of one per identity. What it reads is not kept in any cache: one bulk
   * read must not push out the identities that report all the time. With `parts`, only those parts are read
   * (the rest of each snapshot is empty, unless it came whole from the cache): for a caller that evaluates
   * known checks only.
   */
  loadMany(identityIds: readonly string[], parts?: SnapshotParts): Map<string, PostureSnapshot>;
  setOs(identityId: string, os: OsData): void;
  setMac(identityId: string, mac: MacData): void;
  setDomain(identityId: string, domain: DomainData): void;
  /**
   * A described type's fact (src/api/posture-types), stored generically: one JSON value per identity and type,
   * in the same table as the OpenZiti facts (kind = the type id), the latest report winning.
   */
  setReportedFact(identityId: string, typeId: string, fact: ReportedFactData): void;
  /** one row per binary path: a newer report for the same path replaces the older */
  setProcess(identityId: string, process: ProcessData): void;
  /**
   * The device reported these facts again, unchanged, at `at`: their `lastUpdatedAt` moves to `at`. A backend
   * may write the time behind (SQLite keeps it exact in memory and writes it at most once a minute per fact).
   */
  refreshReported(identityId: string, slots: readonly FactSlotRef[], at: Date): void;
  /** forgets the report for one binary (no check asks about it any more) */
  deleteProcess(identityId: string, path: string): void;
  /** creates the API session's row when missing, then writes the given fields */
  updateApiSession(apiSessionId: string, identityId: string, patch: ApiSessionPatch): void;
  /** forgets the TOTP pass of every API session of the identity (MFA removed) */
  clearMfa(identityId: string): void;
  identityOfApiSession(apiSessionId: string): string | undefined;
  /** the digest of what the API session could access when last evaluated (to tell real changes apart) */
  accessDigest(apiSessionId: string): string | null;
  setAccessDigest(apiSessionId: string, digest: string): void;
  /** identities with at least one API session row (the ones whose access can be seen by a client) */
  identitiesWithApiSessions(): string[];
  deleteApiSession(apiSessionId: string): void;
  deleteIdentity(identityId: string): void;
  /** removes API-session rows whose API session no longer exists; returns how many */
  deleteOrphans(): number;
}

/**
 * An edge session: permission for one API session to Dial or Bind one service (OpenZiti's `session`). Its
 * token is never stored: only its SHA-256 (the token is derived from the id, access/session-tokens.ts).
 */
export interface EdgeSession {
  id: string;
  /** SHA-256 of the token, lowercase hex */
  tokenHash: string;
  identityId: string;
  apiSessionId: string;
  serviceId: string;
  type: PolicyType;
  createdAt: Date;
  updatedAt: Date;
}

export interface SyncEdgeSessionRepository {
  create(session: EdgeSession): void;
  get(id: string): EdgeSession | undefined;
  /** the session whose token has this SHA-256 (routers ask when a token is new to them) */
  getByTokenHash(tokenHash: string): EdgeSession | undefined;
  getMany(ids: readonly string[]): EdgeSession[];
  /** every session: what a router's link starts from */
  all(): EdgeSession[];
  /** a page of every identity's sessions for administrators: `query.filter` in OpenZiti's grammar */
  list(query: ListQuery): Page<EdgeSession>;
  /**
   * gives the session another token hash (its token was derived under another master key, so this controller
   * cannot hand that token out); false when the session does not exist
   */
  setTokenHash(id: string, tokenHash: string): boolean;
  find(apiSessionId: string, serviceId: string, type: PolicyType): EdgeSession | undefined;
  listByIdentity(identityId: string): EdgeSession[];
  delete(id: string): boolean;
  /** deletes these sessions; returns the ids that existed */
  deleteMany(ids: readonly string[]): string[];
  deleteByApiSession(apiSessionId: string): void;
  deleteByIdentity(identityId: string): void;
  /** identities holding at least one session: the ones a policy change can revoke something from */
  identitiesWithSessions(): string[];
  /** removes sessions whose API session no longer exists; returns how many */
  deleteOrphans(): number;
}

/** One failed posture check inside a failed policy; `extra` fields (MFA `criteria`, ...) sit beside these. */
export interface CheckFailure {
  postureCheckId: string;
  postureCheckName: string;
  postureCheckType: string;
  actualValue: unknown;
  expectedValue: unknown;
  [extra: string]: unknown;
}

export interface PolicyFailure {
  policyId: string;
  policyName: string;
  checks: CheckFailure[];
}

export interface FailedServiceRequest {
  apiSessionId: string;
  serviceId: string;
  serviceName: string;
  sessionType: PolicyType;
  when: Date;
  policyFailures: PolicyFailure[];
}

export interface SyncFailedRequestRepository {
  /** appends and keeps only the newest `keep` records of the identity */
  add(identityId: string, record: FailedServiceRequest, keep: number): void;
  /** oldest first */
  list(identityId: string): FailedServiceRequest[];
  /** every identity's, newest first (the administrators' overview) */
  recent(limit: number, offset: number): (FailedServiceRequest & { identityId: string })[];
  count(): number;
  deleteByIdentity(identityId: string): void;
}

/** When an identity's service access last changed (`GET /current-api-session/service-updates`). */
export interface SyncServiceChangeRepository {
  lastChangeAt(identityId: string): Date | undefined;
  markChanged(identityId: string, at: Date): void;
  deleteByIdentity(identityId: string): void;
}

/** What the posture engine and routes use: each method answers a promise (see store/async.ts). */
export type PostureRepository = Async<SyncPostureRepository>;
export type PostureDataRepository = Async<SyncPostureDataRepository>;
export type EdgeSessionRepository = Async<SyncEdgeSessionRepository>;

export interface SyncPostureRepository {
  readonly data: SyncPostureDataRepository;
  readonly sessions: SyncEdgeSessionRepository;
  readonly failures: SyncFailedRequestRepository;
  readonly changes: SyncServiceChangeRepository;
}
