/**
 * Why a posture query fails for the caller's own device, as the controller tells it on the client's
 * `GET /services`: a code a program can switch on, and the facts the user needs to fix it (the OS and
 * versions required, the binary's path, the time left). Never the approved MAC addresses, domains, hashes or
 * signers: those would tell an attacker what to forge or aim at (the check's remediation text, written by the
 * administrator, says what to do instead).
 */

export const POSTURE_FAILURE_CODES = [
  /** The device has not reported the data this check needs yet. */
  'NO_DATA_YET',
  'PROCESS_NOT_RUNNING',
  /** Running, but its binary's hash is not one of the approved builds. */
  'PROCESS_HASH_NOT_APPROVED',
  /** Running, but not signed by an approved certificate. */
  'PROCESS_SIGNER_NOT_APPROVED',
  /** The device's operating system is not one the check allows (also: a process rule for another OS). */
  'OS_TYPE_NOT_ALLOWED',
  'OS_VERSION_OUT_OF_RANGE',
  'MAC_NOT_ALLOWED',
  'DOMAIN_MISMATCH',
  /** No authenticator code entered in this API session. */
  'MFA_REQUIRED',
  /** The last code is older than the check's timeout. */
  'MFA_TIMED_OUT',
  /** The device woke (or was unlocked) and no code was entered since: failing once the grace period ends. */
  'MFA_NEEDED_AFTER_WAKE',
  'MFA_NEEDED_AFTER_UNLOCK',
] as const;
export type PostureFailureCode = (typeof POSTURE_FAILURE_CODES)[number];

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
  /** NO_DATA_YET: which report is missing (`OS`, `MAC`, `DOMAIN`, `PROCESS`) */
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
}
