/**
 * What PROCESS and PROCESS_MULTI share: validating one process rule and deciding whether the device's report
 * for it passes.
 *
 * Reports are looked up by binary path, not by posture check id (OpenZiti's PROCESS uses the id, its
 * PROCESS_MULTI the path): the agent reports one entry per path whichever checks asked, so one report serves
 * every rule naming that binary. Paths compare exactly, except that Windows rules ignore case because Windows
 * file names do (openziti/ziti-sdk-c#430 was this bug).
 */
import type { PostureFailureCode, PostureFailureReason } from '../../../src/api/posture-reasons.js';
import type {
  FieldProblem,
  PostureSnapshot,
  OsType,
  ProcessSnapshot,
  ProcessRule,
} from '../../posture-model.js';
import { CHECK_TEXT_LIMITS } from '../../../src/api/resources/posture-checks.js';
import {
  OS_TYPE_LIST,
  isRecord,
  kindOf,
  normaliseHex,
  osKey,
  parseHex,
  parseHexList,
  parseOsType,
  pickField,
} from './normalise.js';

const WINDOWS: readonly OsType[] = ['Windows', 'WindowsServer'];

/**
 * A rule's OS family: Windows and Windows Server are one (the same binaries run on both); every other OS
 * is its own. A reported OS this controller does not know (`FreeBSD`) is a family no rule belongs to.
 */
function osFamily(os: string): string {
  const known = parseOsType(os);
  if (known === null) return osKey(os);
  return WINDOWS.includes(known) ? 'windows' : osKey(known);
}

/**
 * Postern's deliberate difference from OpenZiti, which ignores a process rule's OS: a rule applies only to
 * devices of its OS family, so a check listing a Windows and a Linux agent asks each device for its own.
 * Until the device has reported its OS every rule applies (nothing is skipped on a guess).
 */
export function ruleApplies(rule: ProcessRule, data: PostureSnapshot | null): boolean {
  const reported = data?.os?.type;
  if (typeof reported !== 'string' || reported.trim() === '') return true;
  return osFamily(rule.osType) === osFamily(reported);
}

/** The failure reason when no rule of a check applies to the device's OS. */
export function noRuleFor(data: PostureSnapshot | null): string {
  return `no process rule for ${data?.os?.type ?? 'this operating system'}`;
}

/** For the user, a process rule for another OS reads as the OS being wrong: the only fix is another device. */
export function noRuleFailure(
  rules: readonly ProcessRule[],
  data: PostureSnapshot | null,
): PostureFailureReason {
  const allowed = [...new Set(rules.map((r) => r.osType))].map((type) => ({ type, versions: [] }));
  return { code: 'OS_TYPE_NOT_ALLOWED', osType: data?.os?.type ?? '', allowed };
}

/** What the user is told about one failing rule: its code and binary, never the approved hashes or signers. */
export function processFailure(rule: ProcessRule, outcome: ProcessOutcome): PostureFailureReason {
  return { code: outcome.code ?? 'PROCESS_NOT_RUNNING', path: rule.path };
}
/** sha256 or sha512 (OpenZiti's C SDK reports sha512): a report is compared with hashes of its own length. */
const BINARY_HASH = [[64, 128], 'a sha256 or sha512 hash'] as const;
const SHA1 = [40, 'a sha1 certificate thumbprint'] as const;

function isAbsolute(path: string, os: OsType | null): boolean {
  const windows = /^[A-Za-z]:[\\/]/.test(path) || /^\\\\[^\\]+\\/.test(path);
  if (os === null) return windows || path.startsWith('/');
  return WINDOWS.includes(os) ? windows : path.startsWith('/');
}

/**
 * Validates one rule at `field` (`processes[1]`, `process`). `fingerprints` names the signer field: PROCESS_MULTI
 * has the list `signerFingerprints`, PROCESS the single string `signerFingerprint` (stored as a one-item list).
 */
export function parseProcessRule(
  value: unknown,
  field: string,
  fingerprints: 'signerFingerprints' | 'signerFingerprint',
  problems: FieldProblem[],
): ProcessRule | undefined {
  if (!isRecord(value)) {
    problems.push({ field, reason: `must be an object {osType, path, ...}, got ${kindOf(value)}`, value });
    return undefined;
  }
  const before = problems.length;
  // `os` is Postern's original name for the field, `osType` OpenZiti's.
  const os = pickField(value, ['osType', 'os']);
  const osType = parseOsType(os?.value);
  if (osType === null) {
    const reason = os ? `must be one of ${OS_TYPE_LIST}` : 'is required';
    problems.push({ field: `${field}.${os?.key ?? 'osType'}`, reason, value: os?.value });
  }
  const path = value.path;
  if (typeof path !== 'string' || !isAbsolute(path, osType)) {
    const reason = typeof path === 'string' ? 'must be an absolute path to the binary' : 'is required';
    problems.push({ field: `${field}.path`, reason, value: path });
  } else if (path.length > CHECK_TEXT_LIMITS.path) {
    const reason = `must be at most ${CHECK_TEXT_LIMITS.path} characters`;
    problems.push({ field: `${field}.path`, reason, value: path.length });
  }
  const hashes = parseHexList(value.hashes, `${field}.hashes`, problems, ...BINARY_HASH);
  let signerFingerprints: string[] | undefined = [];
  if (fingerprints === 'signerFingerprints') {
    signerFingerprints = parseHexList(
      value.signerFingerprints,
      `${field}.signerFingerprints`,
      problems,
      ...SHA1,
    );
  } else if (
    value.signerFingerprint !== undefined &&
    value.signerFingerprint !== null &&
    value.signerFingerprint !== ''
  ) {
    const one = parseHex(value.signerFingerprint, `${field}.signerFingerprint`, problems, ...SHA1);
    signerFingerprints = one === undefined ? undefined : [one];
  }
  if (
    problems.length > before ||
    osType === null ||
    typeof path !== 'string' ||
    !hashes ||
    !signerFingerprints
  ) {
    return undefined;
  }
  return { osType, path, hashes, signerFingerprints };
}

/** The actual value of one process in a failure record. */
export interface ProcessActual {
  isRunning: boolean;
  hash: string;
  signerFingerprints: string[];
  path: string;
  osType?: string;
}

export interface ProcessOutcome {
  passed: boolean;
  actual: ProcessActual;
  reason?: string;
  code?: PostureFailureCode;
}

/** The latest report for the rule's binary; on Windows two reports may differ only in case. */
export function findReport(
  rule: ProcessRule,
  reports: readonly ProcessSnapshot[],
): ProcessSnapshot | undefined {
  const fold = WINDOWS.includes(rule.osType);
  const wanted = fold ? rule.path.toLowerCase() : rule.path;
  let best: ProcessSnapshot | undefined;
  for (const r of reports) {
    if ((fold ? r.path.toLowerCase() : r.path) !== wanted) continue;
    if (!best || r.lastUpdatedAt.getTime() > best.lastUpdatedAt.getTime()) best = r;
  }
  return best;
}

/** Running, from an allowed binary (when hashes are listed) signed by an allowed signer (when signers are listed). */
export function evaluateProcessRule(rule: ProcessRule, data: PostureSnapshot | null): ProcessOutcome {
  const report = data ? findReport(rule, data.processes) : undefined;
  const hash = report ? normaliseHex(report.hash) : '';
  const signers = report ? report.signerFingerprints.map(normaliseHex) : [];
  const actual: ProcessActual = {
    isRunning: report?.isRunning ?? false,
    hash,
    signerFingerprints: signers,
    path: report?.path ?? rule.path,
  };
  if (data?.os) actual.osType = data.os.type;
  const fail = (code: PostureFailureCode, why: string): ProcessOutcome => ({
    passed: false,
    actual,
    reason: `process ${rule.path} ${why}`,
    code,
  });
  if (!report) return fail('NO_DATA_YET', 'has not been reported by the device');
  if (!report.isRunning) return fail('PROCESS_NOT_RUNNING', 'is not running');
  if (rule.hashes.length > 0 && !rule.hashes.includes(hash)) {
    const unapproved = (why: string) => fail('PROCESS_HASH_NOT_APPROVED', why);
    if (hash === '') return unapproved('was reported without a binary hash');
    const kind = hash.length === 128 ? 'sha512' : 'sha256';
    if (!rule.hashes.some((h) => h.length === hash.length))
      return unapproved(`was reported with a ${kind} hash, and the check lists no ${kind} hashes`);
    return unapproved(`runs an unapproved binary (${kind} ${hash})`);
  }
  if (rule.signerFingerprints.length > 0 && !signers.some((s) => rule.signerFingerprints.includes(s))) {
    return fail('PROCESS_SIGNER_NOT_APPROVED', 'is not signed by an approved certificate');
  }
  return { passed: true, actual };
}
