/**
 * OS check: the reported operating system must be one of the listed types and, when that type lists version
 * ranges, its version must be in at least one of them (as OpenZiti's OS check, plus Postern's build-as-patch
 * rule, which OpenZiti ignores). Range and version handling live in `semver-range.ts`.
 */
import type { PostureFailureReason } from '../../../src/api/posture-reasons.js';
import type { CheckResult, FieldProblem, OperatingSystemRule, OsCheck } from '../../posture-model.js';
import type { CheckModule } from './check-module.js';
import { CHECK_TEXT_LIMITS } from '../../../src/api/resources/posture-checks.js';
import {
  OS_TYPE_LIST,
  isRecord,
  kindOf,
  osKey,
  parseList,
  parseOsType,
  resolveField,
  unique,
} from './normalise.js';
import {
  cachedRange,
  matchRanges,
  parseReportedVersion,
  parseVersionRange,
  type VersionRange,
} from './semver-range.js';

function parseRule(value: unknown, field: string, problems: FieldProblem[]): OperatingSystemRule | undefined {
  if (!isRecord(value)) {
    problems.push({ field, reason: `must be an object {type, versions}, got ${kindOf(value)}`, value });
    return undefined;
  }
  // `ziti edge create posture-check os` sends `{Type, Versions}` (a Go struct without JSON names), which
  // OpenZiti's decoder matches without regard to case.
  const rawType = value.type ?? value.Type;
  const rawVersions = value.versions ?? value.Versions;
  const type = parseOsType(rawType);
  if (type === null) {
    problems.push({ field: `${field}.type`, reason: `must be one of ${OS_TYPE_LIST}`, value: rawType });
  }
  // versions is optional: a type listed without ranges allows every version of it.
  let versions: string[] | undefined = [];
  if (rawVersions !== undefined && rawVersions !== null) {
    versions = parseList(rawVersions, `${field}.versions`, problems, false, (v, f) => {
      if (typeof v === 'string' && v.length > CHECK_TEXT_LIMITS.versionRange) {
        const reason = `must be at most ${CHECK_TEXT_LIMITS.versionRange} characters`;
        problems.push({ field: f, reason, value: v.length });
        return undefined;
      }
      const range = parseVersionRange(v);
      if (typeof range !== 'string') return range.source;
      problems.push({ field: f, reason: `is not a valid version range: ${range}`, value: v });
      return undefined;
    });
  }
  return type !== null && versions ? { type, versions: unique(versions) } : undefined;
}

/**
 * Two rules for one OS type: OpenZiti silently keeps the last, which may not be the one the administrator
 * meant; an error naming the second is better than a guess.
 */
function findDuplicateTypes(rules: OperatingSystemRule[], key: string, problems: FieldProblem[]): void {
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    const first = seen.get(osKey(rule.type));
    if (first === undefined) return void seen.set(osKey(rule.type), i);
    problems.push({
      field: `${key}[${i}].type`,
      reason: `repeats ${rule.type} from ${key}[${first}]; put all its version ranges in one entry`,
      value: rule.type,
    });
  });
}

/** The stored ranges of the rules for one OS; a range that no longer parses matches nothing (fail closed). */
function rangesOf(rules: OperatingSystemRule[]): VersionRange[] {
  return rules.flatMap((r) =>
    r.versions.map(cachedRange).filter((x): x is VersionRange => typeof x !== 'string'),
  );
}

export const osCheck: CheckModule<OsCheck> = {
  typeId: 'OS',
  reads: { kinds: ['os'] },

  parse(body, mode, existing) {
    const problems: FieldProblem[] = [];
    const field = resolveField(body, ['operatingSystems'], mode, existing !== undefined);
    let operatingSystems = existing?.operatingSystems;
    if (field.kind === 'missing') {
      problems.push({ field: 'operatingSystems', reason: 'is required' });
    } else if (field.kind === 'given') {
      operatingSystems = parseList(field.value, field.key, problems, true, (v, f) =>
        parseRule(v, f, problems),
      );
      if (operatingSystems) findDuplicateTypes(operatingSystems, field.key, problems);
    }
    if (problems.length > 0 || !operatingSystems) return { ok: false, problems };
    return { ok: true, spec: { typeId: 'OS', operatingSystems } };
  },

  toWire(check) {
    return {
      operatingSystems: check.operatingSystems.map((r) => ({ type: r.type, versions: [...r.versions] })),
    };
  },

  evaluate(check, data) {
    // Stored data is typed, but a report is untrusted input: read it so that junk fails instead of throwing.
    const os = {
      type: textOf(data?.os?.type),
      version: textOf(data?.os?.version),
      build: data?.os?.build ?? null,
    };
    return remembered(check, os);
  },

  timeoutSeconds: () => -1,
  timeoutRemaining: () => -1,
  queryFields: () => ({}),
  nextChangeAt: () => null,
};

const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

interface ReportedOs {
  type: string;
  version: string;
  build: string | null;
}

/** Results kept per check, by what the device reported; a stored check is never changed in place. */
const resultsByCheck = new WeakMap<OsCheck, Map<string, CheckResult>>();
/** Distinct reports kept per check: a fleet runs a handful of OS versions; a flood of odd ones starts afresh. */
const REMEMBERED_REPORTS = 1_024;

/**
 * The result for a report, evaluated once per distinct report and check: most devices report the same few
 * versions, and parsing them against the ranges was most of an impact preview's evaluation time.
 */
function remembered(check: OsCheck, os: ReportedOs): CheckResult {
  let results = resultsByCheck.get(check);
  if (!results) resultsByCheck.set(check, (results = new Map()));
  const key = `${os.type}\n${os.version}\n${os.build ?? ''}\n${os.build === null}`;
  let result = results.get(key);
  if (!result) {
    if (results.size >= REMEMBERED_REPORTS) results.clear();
    results.set(key, (result = evaluateOs(check, os)));
  }
  return result;
}

function evaluateOs(check: OsCheck, os: ReportedOs): CheckResult {
  const expectedValue = check.operatingSystems.map((r) => ({ type: r.type, versions: [...r.versions] }));
  const actualValue = { type: os.type, version: os.version };
  const fail = (reason: string, failure: PostureFailureReason) => ({
    isPassing: false,
    actualValue,
    expectedValue,
    reason,
    failure,
  });
  if (os.type.trim() === '')
    return fail('the device has not reported its operating system', { code: 'NO_DATA_YET', missing: 'OS' });

  // Every rule for the reported type counts (an OS listed twice allows the union), unlike OpenZiti's last-wins.
  const rules = check.operatingSystems.filter((r) => osKey(r.type) === osKey(os.type));
  if (rules.length === 0) {
    const allowed = unique(check.operatingSystems.map((r) => r.type)).join(', ');
    return fail(`${os.type} is not an allowed operating system (allowed: ${allowed})`, {
      code: 'OS_TYPE_NOT_ALLOWED',
      osType: os.type,
      allowed: expectedValue,
    });
  }
  const name = rules[0]!.type;
  if (rules.some((r) => r.versions.length === 0)) return { isPassing: true, actualValue, expectedValue };

  const version = parseReportedVersion(os.version, os.build);
  const outOfRange = (osVersion: string): PostureFailureReason => ({
    code: 'OS_VERSION_OUT_OF_RANGE',
    osType: name,
    osVersion,
    allowed: rules.map((r) => ({ type: r.type, versions: [...r.versions] })),
  });
  if (typeof version === 'string')
    return fail(`the reported ${name} version ${version}`, outOfRange(os.version));
  const miss = matchRanges(rangesOf(rules), version);
  if (miss === null) return { isPassing: true, actualValue, expectedValue };
  const wanted = rules.flatMap((r) => r.versions).join(' or ');
  const failure = outOfRange(version.text);
  if (miss === 'low') return fail(`${name} ${version.text} is older than required (${wanted})`, failure);
  if (miss === 'high') return fail(`${name} ${version.text} is newer than allowed (${wanted})`, failure);
  return fail(`${name} ${version.text} is not an allowed version (${wanted})`, failure);
}
