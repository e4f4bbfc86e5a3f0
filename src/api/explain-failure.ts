/**
 * Plain words for a failing posture check: what the user can do about it. Shared by the CLI's services
 * table and the desktop renderer, so it is pure TypeScript with no Node imports.
 *
 * The service list only says which checks fail; the expected values (which versions, which domains) come from
 * a failure record when the caller has one. Without them the advice is generic but still actionable.
 */

export interface CheckFailureFacts {
  queryType: string;
  /** The binaries a PROCESS / PROCESS_MULTI check names. */
  paths?: readonly string[];
  /** PROCESS_MULTI: `AllOf` needs every binary, `AnyOf`/`OneOf` one of them. */
  semantic?: string;
  /** The device's OS as the agent reports it (`Linux`, `Windows`, `macOS`), for OS advice. */
  osName?: string;
  /** MFA: `false` when the identity has no authenticator set up yet. */
  mfaEnrolled?: boolean;
  /** A failure record's `expectedValue` / `actualValue` (failed-service-requests shapes), when known. */
  expectedValue?: unknown;
  actualValue?: unknown;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];

/** The file name of a Windows or POSIX path. */
export function binaryName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** `6.8.0` reads better as `6.8`; a real patch level stays. */
function shortVersion(v: string): string {
  return v.replace(/^(\d+\.\d+)\.0$/, '$1');
}

/** Advice from one semver range: a lower bound becomes "X or later", an upper bound "older than Y". */
function adviceForRange(os: string, range: string): string {
  const first = range.split('||')[0]!.trim();
  const lower = /(?:^|\s)>=?\s*v?(\d+(?:\.\d+){0,2})/.exec(first);
  if (lower) return `Update ${os} to ${shortVersion(lower[1]!)} or later`;
  const upper = /(?:^|\s)<=?\s*v?(\d+(?:\.\d+){0,2})/.exec(first);
  if (upper) return `Use a ${os} version older than ${shortVersion(upper[1]!)}`;
  return `Use a ${os} version the policy allows (${range})`;
}

function explainOs(facts: CheckFailureFacts): string {
  const actualType =
    isRec(facts.actualValue) && typeof facts.actualValue.type === 'string' ? facts.actualValue.type : '';
  const os = facts.osName || actualType || 'your operating system';
  const rules = Array.isArray(facts.expectedValue) ? facts.expectedValue.filter(isRec) : [];
  if (rules.length === 0) return `Update ${os} to a version the policy allows`;
  const mine = rules.filter((r) => typeof r.type === 'string' && r.type.toLowerCase() === os.toLowerCase());
  if (mine.length === 0) {
    const allowed = [...new Set(rules.map((r) => String(r.type)))].join(' or ');
    return `Use an allowed operating system (${allowed})`;
  }
  const ranges = mine.flatMap((r) => strings(r.versions));
  return ranges[0]
    ? adviceForRange(String(mine[0]!.type), ranges[0])
    : `Update ${os} to a version the policy allows`;
}

function explainDomain(facts: CheckFailureFacts): string {
  const domains = strings(facts.expectedValue);
  if (domains.length === 1) return `Join the ${domains[0]} domain`;
  if (domains.length > 1) return `Join one of these domains: ${domains.join(', ')}`;
  return "Join your organisation's Windows domain";
}

/** Running but the wrong binary (hash or signer) needs a reinstall, not a start. */
function runningButUnapproved(actual: unknown): boolean {
  return isRec(actual) && actual.isRunning === true;
}

function explainProcess(path: string, actual: unknown): string {
  const name = binaryName(path);
  if (runningButUnapproved(actual)) return `Install an approved build of ${name} at ${path}`;
  return `Start ${name} from ${path}`;
}

function explainProcessMulti(facts: CheckFailureFacts): string {
  const paths = facts.paths ?? [];
  const actual = Array.isArray(facts.actualValue) ? facts.actualValue.filter(isRec) : [];
  const actualOf = (path: string) => actual.find((a) => a.path === path);
  if (paths.length === 0) return 'Start the programs the policy requires';
  const anyOne = facts.semantic === 'AnyOf' || facts.semantic === 'OneOf';
  if (anyOne && paths.length > 1)
    return `Start one of: ${paths.map((p) => `${binaryName(p)} from ${p}`).join(', ')}`;
  // AllOf, or unknown (the service list does not carry the semantic): name each binary that needs attention,
  // leaving out those a failure record shows running.
  const missing = actual.length ? paths.filter((p) => actualOf(p)?.isRunning !== true) : paths;
  return (missing.length ? missing : paths).map((p) => explainProcess(p, actualOf(p))).join('; ');
}

export function explainFailure(facts: CheckFailureFacts): string {
  switch (facts.queryType) {
    case 'OS':
      return explainOs(facts);
    case 'MAC':
      return 'Connect from an allowed network adapter';
    case 'DOMAIN':
      return explainDomain(facts);
    case 'PROCESS': {
      const path = facts.paths?.[0];
      return path ? explainProcess(path, facts.actualValue) : 'Start the program the policy requires';
    }
    case 'PROCESS_MULTI':
      return explainProcessMulti(facts);
    case 'MFA':
      return facts.mfaEnrolled === false
        ? 'Set up an authenticator app (MFA) for your account'
        : 'Enter your authenticator code';
    default:
      return `Meet the ${facts.queryType} posture check`;
  }
}
