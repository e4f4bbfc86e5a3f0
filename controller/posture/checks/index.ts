/**
 * The registry of posture check types: the only way the rest of the controller reaches a type's validation,
 * evaluation and wire form. Adding a type means its descriptor (src/api/posture-types), one evaluation module
 * (described-check.ts does the rest) and one line here; a descriptor without its line fails to compile.
 */
import {
  POSTURE_CHECK_TYPES,
  type CheckResult,
  type EvaluationContext,
  type PostureSnapshot,
  type PostureCheck,
  type PostureCheckType,
  type SnapshotParts,
} from '../../posture-model.js';
import type { CheckModule } from './check-module.js';
import { agentVersionCheck } from './agent-version-check.js';
import { diskEncryptionCheck } from './disk-encryption-check.js';
import { domainCheck } from './domain-check.js';
import { firewallCheck } from './firewall-check.js';
import { macCheck } from './mac-check.js';
import { mfaCheck } from './mfa-check.js';
import { osCheck } from './os-check.js';
import { processCheck } from './process-check.js';
import { processMultiCheck } from './process-multi-check.js';
import { screenLockCheck } from './screen-lock-check.js';

export type { CheckModule, ParseMode, ParseResult } from './check-module.js';
export { isLegacyClient } from './mfa-check.js';

/** The check type whose `typeId` is K. */
export type CheckOfType<K extends PostureCheckType> = Extract<PostureCheck, { typeId: K }>;

type Registry = { [K in PostureCheckType]: CheckModule<CheckOfType<K>> };

const registry: Registry = {
  OS: osCheck,
  MAC: macCheck,
  DOMAIN: domainCheck,
  PROCESS: processCheck,
  PROCESS_MULTI: processMultiCheck,
  MFA: mfaCheck,
  DISK_ENCRYPTION: diskEncryptionCheck,
  FIREWALL: firewallCheck,
  SCREEN_LOCK: screenLockCheck,
  AGENT_VERSION: agentVersionCheck,
};

export const checkModules: Record<PostureCheckType, CheckModule> = registry;

export function isPostureCheckType(value: unknown): value is PostureCheckType {
  return typeof value === 'string' && (POSTURE_CHECK_TYPES as readonly string[]).includes(value);
}

/** The module for a known type; for any other string (a request's `typeId`), undefined. Exact case, as OpenZiti. */
export function getCheckModule<K extends PostureCheckType>(typeId: K): CheckModule<CheckOfType<K>>;
export function getCheckModule(typeId: string): CheckModule | undefined;
export function getCheckModule(typeId: string): CheckModule | undefined {
  return isPostureCheckType(typeId) ? checkModules[typeId] : undefined;
}

/** The module of a stored check, typed to it, so callers need no cast. */
export function moduleFor<T extends PostureCheck>(check: T): CheckModule<T> {
  return checkModules[check.typeId] as unknown as CheckModule<T>;
}

/** Shorthand for the evaluator: dispatches on the check's type. */
export function evaluateCheck(
  check: PostureCheck,
  data: PostureSnapshot | null,
  ctx: EvaluationContext,
): CheckResult {
  return moduleFor(check).evaluate(check, data, ctx);
}

/** What evaluating every one of the checks reads: the union of their types' parts. */
export function partsReadBy(checks: Iterable<PostureCheck>): SnapshotParts {
  const kinds = new Set<string>();
  let processes = false;
  let apiSessions = false;
  for (const check of checks) {
    const reads = moduleFor(check).reads;
    for (const kind of reads.kinds) kinds.add(kind);
    processes ||= reads.processes === true;
    apiSessions ||= reads.apiSessions === true;
  }
  return { kinds: [...kinds], processes, apiSessions };
}
