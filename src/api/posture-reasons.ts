/**
 * Why a posture query fails for the caller's own device, as the controller tells it on the client's
 * `GET /services`: a code a program can switch on, and the facts the user needs to fix it (the OS and
 * versions required, the binary's path, the time left). Never the approved MAC addresses, domains, hashes or
 * signers: those would tell an attacker what to forge or aim at (the check's remediation text, written by the
 * administrator, says what to do instead).
 */
import { POSTURE_TYPE_DESCRIPTORS, type PostureTypeReasonCode } from './posture-types/index.js';

/**
 * Every reason code: NO_DATA_YET (the device has not reported the data a check needs yet), then each type's own,
 * as its descriptor lists them (posture-types/: OS_*, MAC_*, DOMAIN_*, PROCESS_*, MFA_*, then Postern's
 * extensions). MFA_NEEDED_AFTER_WAKE / _UNLOCK also mark a passing check whose grace period runs.
 */
export const POSTURE_FAILURE_CODES = [
  'NO_DATA_YET',
  ...new Set(POSTURE_TYPE_DESCRIPTORS.flatMap((d) => Object.keys(d.reasons))),
] as readonly PostureFailureCode[];
export type PostureFailureCode = 'NO_DATA_YET' | PostureTypeReasonCode;

export interface AllowedOperatingSystem {
  type: string;
  /** semver ranges; empty means any version */
  versions: string[];
}

/** One binary of a PROCESS_MULTI check that stands in the way. */
export interface ProcessFailure {
  path: string;
  code: PostureFailureCode;
}

export interface PostureFailureReason {
  code: PostureFailureCode;
  /** NO_DATA_YET: which report is missing: the check's type (`OS`, `MAC`, `DOMAIN`, `PROCESS`, `FIREWALL`, ...) */
  missing?: string;
  /** OS_*: the operating system the device reported */
  osType?: string;
  /** OS_VERSION_OUT_OF_RANGE: the version the device reported */
  osVersion?: string;
  /** OS_*: what the check allows (OS_VERSION_OUT_OF_RANGE: the entries for the device's own OS) */
  allowed?: AllowedOperatingSystem[];
  /** PROCESS_*: the binary the check names */
  path?: string;
  /** DOMAIN_MISMATCH: the domain the device is in ('' for none); never the domains the check allows */
  domain?: string;
  /** MFA_TIMED_OUT: how long a code lasts */
  timeoutSeconds?: number;
  /** MFA_NEEDED_AFTER_*: seconds left before access ends; 0 once it has */
  secondsLeft?: number;
  /** PROCESS_MULTI: `AllOf` needs every binary, `AnyOf` one of them */
  semantic?: 'AllOf' | 'AnyOf';
  /** PROCESS_MULTI: each binary that stands in the way */
  processes?: ProcessFailure[];
  /** SCREEN_LOCK_TOO_LATE: the idle minutes the device locks after, and the most the check allows */
  idleMinutes?: number;
  maxIdleMinutes?: number;
  /** AGENT_VERSION_*: the version the agent signed in with ('' when none), and the range the check allows */
  agentVersion?: string;
  versions?: string;
  /** *_UNKNOWN: why the agent could not read the fact, in its own plain words */
  unknownReason?: string;
}
