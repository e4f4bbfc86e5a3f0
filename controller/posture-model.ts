/**
 * The controller's internal model of posture checks and posture data.
 *
 * Checks are stored normalised (see each check module's `normalise`), so evaluation never has to
 * re-clean configured values. Posture data is what agents reported, stamped with the controller's
 * own clock: identity-level facts (OS, MAC, domain, processes) are shared by every API session of
 * the identity, MFA and endpoint state belong to one API session.
 */
// The wire contract's closed sets (src/api/resources/vocabulary.ts), re-exported where the model names them.
import { ENFORCEMENT_MODE_VALUES, OS_TYPES, POSTURE_CHECK_TYPES } from '../src/api/resources/vocabulary.js';
import type { PostureFailureReason } from '../src/api/posture-reasons.js';

export { POSTURE_CHECK_TYPES };
export type PostureCheckType = (typeof POSTURE_CHECK_TYPES)[number];

/** Canonical spellings of OpenZiti's `osType` enum; input is matched case-insensitively. */
export { OS_TYPES };
export type OsType = (typeof OS_TYPES)[number];

/** `timeoutSeconds` value meaning "no timeout" (0 and negative values are stored as this). */
export const NO_TIMEOUT = -1;
/** Grace period after a wake or unlock before an MFA check that prompts on it starts to fail. */
export const MFA_PROMPT_GRACE_SECONDS = 300;

export interface OperatingSystemRule {
  type: OsType;
  versions: string[];
}

export interface ProcessRule {
  osType: OsType;
  path: string;
  /** lower-case sha256 hex; empty means any binary */
  hashes: string[];
  /** lower-case sha1 hex thumbprints; empty means any signer */
  signerFingerprints: string[];
}

/** How a failing check acts (Postern): refuses, only records the would-be refusal, or warns until a deadline. */
export { ENFORCEMENT_MODE_VALUES as ENFORCEMENT_MODES };
export type EnforcementMode = (typeof ENFORCEMENT_MODE_VALUES)[number];

export interface Enforcement {
  mode: EnforcementMode;
  /** `warn` only: the moment the check starts to refuse */
  enforceFrom: Date | null;
}

interface CheckBase {
  id: string;
  name: string;
  /** absent on checks stored before enforcement modes existed: they enforce (see `enforcementOf`) */
  enforcement?: Enforcement;
  /** the administrator's advice shown to a user this check blocks (a sentence and a link), as written */
  remediation?: string | null;
  roleAttributes: string[];
  tags: Record<string, unknown>;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface OsCheck extends CheckBase {
  typeId: 'OS';
  operatingSystems: OperatingSystemRule[];
}
export interface MacCheck extends CheckBase {
  typeId: 'MAC';
  /** normalised: lower-case hex, no separators */
  macAddresses: string[];
}
export interface DomainCheck extends CheckBase {
  typeId: 'DOMAIN';
  domains: string[];
}
export interface ProcessCheck extends CheckBase {
  typeId: 'PROCESS';
  process: ProcessRule;
}
export interface ProcessMultiCheck extends CheckBase {
  typeId: 'PROCESS_MULTI';
  /** `OneOf` (Postern's original word) is stored as `AnyOf` (OpenZiti's); they mean the same. */
  semantic: 'AllOf' | 'AnyOf';
  processes: ProcessRule[];
}
export interface MfaCheck extends CheckBase {
  typeId: 'MFA';
  /** NO_TIMEOUT (-1) for none */
  timeoutSeconds: number;
  promptOnWake: boolean;
  promptOnUnlock: boolean;
  ignoreLegacyEndpoints: boolean;
}

/** OpenZiti's types: each has its model here and its module written by hand (they keep OpenZiti's quirks). */
export type OpenZitiCheckType = 'OS' | 'MAC' | 'DOMAIN' | 'PROCESS' | 'PROCESS_MULTI' | 'MFA';
/** Postern's types, defined by their descriptor (src/api/posture-types) and an evaluation module alone. */
export type DescribedCheckType = Exclude<PostureCheckType, OpenZitiCheckType>;

/**
 * A check of a described type: its option fields, validated against the descriptor's schemas, kept apart from
 * the base fields (`options`), and shown back flat on the wire as OpenZiti shows a type's fields.
 */
export type DescribedCheck<K extends DescribedCheckType = DescribedCheckType> = K extends unknown
  ? CheckBase & { typeId: K; options: Readonly<Record<string, unknown>> }
  : never;

export type PostureCheck =
  OsCheck | MacCheck | DomainCheck | ProcessCheck | ProcessMultiCheck | MfaCheck | DescribedCheck;

/** The type-specific part of a check, as validated from a create/update body. */
export type PostureCheckSpec<T extends PostureCheck = PostureCheck> = Omit<T, keyof CheckBase>;

interface DataSlot {
  postureCheckId: string;
  lastUpdatedAt: Date;
}

export interface OsData extends DataSlot {
  type: string;
  version: string;
  build: string | null;
}
export interface MacData extends DataSlot {
  /** normalised like check values */
  addresses: string[];
}
export interface DomainData extends DataSlot {
  domain: string;
}
/**
 * A described type's fact as the agent reported it (`POST /posture-response-bulk` with the type's `typeId`),
 * validated against the descriptor's fact schema: stored generically, one per identity and type.
 */
export interface ReportedFactData extends DataSlot {
  value: Readonly<Record<string, unknown>>;
}
export interface ProcessData extends DataSlot {
  path: string;
  isRunning: boolean;
  /** lower-case hex, or '' when not reported */
  hash: string;
  /** lower-case hex */
  signerFingerprints: string[];
}

export interface ApiSessionPostureData {
  apiSessionId: string;
  /** when this API session last passed TOTP; null when never or since MFA was removed */
  mfaPassedAt: Date | null;
  wokenAt: Date | null;
  unlockedAt: Date | null;
  sdkInfo: Record<string, string> | null;
}

type DeepReadonly<T> = T extends Date
  ? T
  : T extends (infer U)[]
    ? readonly DeepReadonly<U>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/**
 * Posture data as `load` answers it: possibly the store's cached object itself (SQLite), so nobody may change
 * it; a write replaces what it changes instead of changing it in place.
 */
export type PostureSnapshot = DeepReadonly<IdentityPostureData>;
export type ProcessSnapshot = PostureSnapshot['processes'][number];

export interface IdentityPostureData {
  identityId: string;
  os: OsData | null;
  mac: MacData | null;
  domain: DomainData | null;
  /** latest report per binary path */
  processes: ProcessData[];
  /** the described types' facts by type id (absent: none reported) */
  facts?: Record<string, ReportedFactData>;
  apiSessions: Record<string, ApiSessionPostureData>;
}

/**
 * The parts of a snapshot an evaluation reads: fact kinds (`os`, `mac`, `domain`, a described type's id), the
 * processes, the API sessions' rows. A bulk read for thousands of identities (an impact preview) loads only
 * what its checks read; every other reader takes the whole snapshot.
 */
export interface SnapshotParts {
  kinds: readonly string[];
  processes?: boolean;
  apiSessions?: boolean;
}

/** What one evaluation needs besides the data: whose session and what time it is. */
export interface EvaluationContext {
  apiSessionId: string;
  now: Date;
}

export interface CheckResult {
  isPassing: boolean;
  actualValue: unknown;
  expectedValue: unknown;
  /** extra failure fields some types carry (MFA `criteria`, PROCESS_MULTI `semantic`) */
  extra?: Record<string, unknown>;
  /** a plain sentence saying why the check failed, for the failure record and the agent's UI */
  reason?: string;
  /** why it fails, for the device's own user: set on every failing result, and on a passing MFA result while a
   *  wake or unlock grace period runs (the time left) */
  failure?: PostureFailureReason;
  /** set when the type's own result fails but the check lets the device through anyway (enforcement.ts):
   *  why, and until when (null: for as long as the check stays report-only) */
  notEnforced?: NotEnforced;
}

export interface NotEnforced {
  because: 'exception' | 'report-only' | 'warn';
  until: Date | null;
}

/** A field-level validation problem, named the way the API reports it (`operatingSystems[0].versions[0]`). */
export interface FieldProblem {
  field: string;
  reason: string;
  value?: unknown;
}
