/**
 * Whether a service is reachable and, when not, which checks stand in the way, derived from the service list
 * alone. Shared by the agent (CLI table, tray state) and the renderer.
 */
import { explainQuery } from './explain-failure.js';
import type { PostureFailureCode } from './posture-reasons.js';
import { POSTURE_TYPE_DESCRIPTORS } from './posture-types/index.js';
import type { PolicyPostureQueries, PolicyType, PostureQuery, ServiceDetail } from './services.js';

/**
 * `mfa-needed`: blocked, but an authenticator code alone would grant access. `checking`: not granted, and
 * this device has not reported its posture in this session yet, so any failure shown would be a guess.
 */
export type ServiceAccess = 'granted' | 'blocked' | 'mfa-needed' | 'checking';

export interface FailingCheck {
  id: string;
  queryType: string;
  paths: string[];
  /** the controller's reason code, when it gave one */
  code?: PostureFailureCode;
  explanation: string;
  /** the administrator's own advice for this check, to show as written */
  remediation?: string;
}

/** A posture query's type as a user names the check (the tray, the CLI and a refused tunnel's page). */
export const CHECK_NAMES: Record<string, string> = Object.fromEntries(
  POSTURE_TYPE_DESCRIPTORS.map((d) => [d.id, d.userNoun]),
);

/** `network adapter check`, or the type itself for one this version does not know. */
export const checkInWords = (queryType: string) => `${CHECK_NAMES[queryType] ?? queryType} check`;

export interface ServiceAccessView {
  id: string;
  name: string;
  access: ServiceAccess;
  /** The checks of the policy closest to passing (fewest failures): the shortest way to access. */
  failing: FailingCheck[];
  /** Seconds until the earliest MFA timeout or grace period of a passing policy ends; null when none. */
  mfaTimeoutRemaining: number | null;
  /** Why a code is (or will soon be) needed: a wake, an unlock, a timeout, or none yet this session. */
  mfaReason: PostureFailureCode | null;
}

export interface AccessContext {
  /** Which permission matters; the agent dials, so Dial by default. */
  policyType?: PolicyType;
  osName?: string;
  mfaEnrolled?: boolean;
  /** `false` until this device's first posture report of the session: blocked services read `checking`. */
  reported?: boolean;
}

export function queryPaths(query: PostureQuery): string[] {
  const paths = [query.process?.path, ...(query.processes ?? []).map((p) => p.path)];
  return paths.filter((p): p is string => typeof p === 'string' && p !== '');
}

function policiesFor(service: ServiceDetail, type: PolicyType): PolicyPostureQueries[] {
  const all = service.postureQueries ?? [];
  const ofType = all.filter((p) => p.policyType === undefined || p.policyType === type);
  return ofType.length ? ofType : all;
}

function failingOf(policy: PolicyPostureQueries): PostureQuery[] {
  return policy.postureQueries.filter((q) => !q.isPassing);
}

function smallestMfaRemaining(policies: PolicyPostureQueries[]): number | null {
  const remaining = policies
    .filter((p) => p.isPassing)
    .flatMap((p) => p.postureQueries)
    .filter((q) => q.queryType === 'MFA' && q.timeoutRemaining > 0)
    .map((q) => q.timeoutRemaining);
  return remaining.length ? Math.min(...remaining) : null;
}

/** The reason behind the MFA query that needs (or soon needs) a code: failing ones first, then grace periods. */
function mfaReasonOf(policies: PolicyPostureQueries[], granted: boolean): PostureFailureCode | null {
  const mfa = policies
    .filter((p) => p.isPassing === granted)
    .flatMap((p) => p.postureQueries)
    .filter((q) => q.queryType === 'MFA' && q.reason);
  const failing = mfa.find((q) => !q.isPassing) ?? mfa[0];
  return failing?.reason?.code ?? null;
}

export function describeServiceAccess(
  service: ServiceDetail,
  context: AccessContext = {},
): ServiceAccessView {
  const policies = policiesFor(service, context.policyType ?? 'Dial');
  const base = { id: service.id, name: service.name, mfaTimeoutRemaining: smallestMfaRemaining(policies) };
  // A listed service with no policy entries is granted by a policy without checks.
  if (policies.length === 0 || policies.some((p) => p.isPassing))
    return { ...base, access: 'granted', failing: [], mfaReason: mfaReasonOf(policies, true) };

  const candidates = policies.map(failingOf).filter((f) => f.length > 0);
  // A policy failing only on MFA is the one to show: a code is all the user needs.
  const mfaOnly = candidates.find((f) => f.every((q) => q.queryType === 'MFA'));
  // Before this device's first report the controller may hold old data or none: say so rather than guess.
  if (context.reported === false && !mfaOnly)
    return { ...base, access: 'checking', failing: [], mfaReason: null };
  const closest =
    mfaOnly ??
    candidates.reduce((best, next) => (next.length < best.length ? next : best), candidates[0] ?? []);
  const failing = closest.map((q): FailingCheck => ({
    id: q.id,
    queryType: q.queryType,
    paths: queryPaths(q),
    ...(q.reason ? { code: q.reason.code } : {}),
    explanation: explainQuery(q, context),
    ...(q.remediation ? { remediation: q.remediation } : {}),
  }));
  // Waiting only for data the device has not sent is not a refusal yet; the list still says what is awaited.
  const waiting = failing.every((f) => f.code === 'NO_DATA_YET');
  const access = mfaOnly && context.mfaEnrolled !== false ? 'mfa-needed' : waiting ? 'checking' : 'blocked';
  return { ...base, access, failing, mfaReason: mfaReasonOf(policies, false) };
}

/** Every service, sorted by name so tables and lists are stable. */
export function describeServices(
  services: readonly ServiceDetail[],
  context: AccessContext = {},
): ServiceAccessView[] {
  return services
    .map((s) => describeServiceAccess(s, context))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
