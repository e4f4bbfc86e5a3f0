/**
 * Whether a service is reachable and, when not, which checks stand in the way, derived from the service list
 * alone. Shared by the agent (CLI table, tray state) and the renderer.
 */
import { explainQuery } from './explain-failure.js';
import type { PostureFailureCode } from './posture-reasons.js';
import { POSTURE_TYPE_DESCRIPTORS } from './posture-types/index.js';
import { asReference } from './refusal-reference.js';
import type { PolicyPostureQueries, PolicyType, PostureQuery, ServiceDetail } from './services.js';

/**
 * `mfa-needed`: blocked, but an authenticator code alone would grant access. `checking`: not granted, and
 * this device has not reported its posture in this session yet, so any failure shown would be a guess.
 * `warned`: granted, but every passing policy passes only because a check is in warn mode until a deadline:
 * the service will be blocked then unless the device is fixed.
 */
export type ServiceAccess = 'granted' | 'warned' | 'blocked' | 'mfa-needed' | 'checking';

/** Whether the tunnel reaches the service now (a warned one still does, until its deadline). */
export const isReachable = (access: ServiceAccess) => access === 'granted' || access === 'warned';

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

/** A check that passes only thanks to warn mode: what fails now and from when it will be enforced. */
export interface WarnedCheck extends FailingCheck {
  enforceFrom: string;
}

/** A check that passes only thanks to an exception the administrator granted, until it expires. */
export interface ExceptedCheck extends FailingCheck {
  expiresAt: string;
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
  /** `warned`: the checks of the passing policy that lasts longest, each with its deadline; else empty. */
  warnings: WarnedCheck[];
  /** The earliest expiry of the exceptions that policy passes by; null when it needs none. */
  exceptionUntil: string | null;
  /** The checks those exceptions cover, with what would fix them for good; empty when none. */
  excepted: ExceptedCheck[];
  /**
   * `blocked` or `mfa-needed`: the controller's reference for the refusal (`7K2Q-PX`), which the user quotes
   * and the administrator finds the audit event by; null when refused by no controller that says, or reachable.
   */
  reference: string | null;
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

function checkOf(q: PostureQuery, context: AccessContext): FailingCheck {
  return {
    id: q.id,
    queryType: q.queryType,
    paths: queryPaths(q),
    ...(q.reason ? { code: q.reason.code } : {}),
    explanation: explainQuery(q, context),
    ...(q.remediation ? { remediation: q.remediation } : {}),
  };
}

/** What a passing policy stands on beyond its own passing checks, and when it stops passing unless fixed. */
interface Standing {
  warned: PostureQuery[];
  excepted: PostureQuery[];
  /** epoch ms; Infinity for a policy that passes on its own */
  endsAt: number;
}

function standingOf(policy: PolicyPostureQueries): Standing {
  const passing = policy.postureQueries.filter((q) => q.isPassing);
  const warned = passing.filter((q) => q.warning);
  const excepted = passing.filter((q) => q.exception);
  const ends = [
    ...warned.map((q) => Date.parse(q.warning!.enforceFrom)),
    ...excepted.map((q) => Date.parse(q.exception!.expiresAt)),
  ].filter((t) => !Number.isNaN(t));
  return { warned, excepted, endsAt: ends.length ? Math.min(...ends) : Infinity };
}

/** Of the passing policies, the one that keeps access longest; fewer checks to fix breaks a tie. */
function longestStanding(policies: PolicyPostureQueries[]): Standing | undefined {
  return policies.map(standingOf).reduce<Standing | undefined>((best, next) => {
    if (!best || next.endsAt > best.endsAt) return next;
    const size = (s: Standing) => s.warned.length + s.excepted.length;
    return next.endsAt === best.endsAt && size(next) < size(best) ? next : best;
  }, undefined);
}

/** What a granted service owes: the warnings and exceptions its best passing policy stands on. */
function grantedView(passing: PolicyPostureQueries[], context: AccessContext) {
  // A policy free of warnings keeps the service `granted` (exceptions included); only when every passing
  // policy stands on a warning is the service `warned`.
  const free = passing.filter((p) => p.postureQueries.every((q) => !q.isPassing || !q.warning));
  const best = longestStanding(free.length ? free : passing);
  const warnings = (best?.warned ?? []).map((q): WarnedCheck => ({
    ...checkOf(q, context),
    enforceFrom: q.warning!.enforceFrom,
  }));
  const excepted = (best?.excepted ?? []).map((q): ExceptedCheck => ({
    ...checkOf(q, context),
    expiresAt: q.exception!.expiresAt,
  }));
  const earliest = [...excepted].sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt))[0];
  return {
    access: (free.length ? 'granted' : 'warned') as ServiceAccess,
    warnings,
    excepted,
    exceptionUntil: earliest?.expiresAt ?? null,
  };
}

const NO_STANDING = { warnings: [], excepted: [], exceptionUntil: null };

export function describeServiceAccess(
  service: ServiceDetail,
  context: AccessContext = {},
): ServiceAccessView {
  const policies = policiesFor(service, context.policyType ?? 'Dial');
  const base = { id: service.id, name: service.name, mfaTimeoutRemaining: smallestMfaRemaining(policies) };
  // A listed service with no policy entries is granted by a policy without checks.
  if (policies.length === 0)
    return { ...base, ...NO_STANDING, access: 'granted', failing: [], mfaReason: null, reference: null };
  const passing = policies.filter((p) => p.isPassing);
  if (passing.length > 0)
    return {
      ...base,
      ...grantedView(passing, context),
      failing: [],
      mfaReason: mfaReasonOf(policies, true),
      reference: null,
    };

  const candidates = policies.map(failingOf).filter((f) => f.length > 0);
  // A policy failing only on MFA is the one to show: a code is all the user needs.
  const mfaOnly = candidates.find((f) => f.every((q) => q.queryType === 'MFA'));
  // Before this device's first report the controller may hold old data or none: say so rather than guess.
  if (context.reported === false && !mfaOnly)
    return { ...base, ...NO_STANDING, access: 'checking', failing: [], mfaReason: null, reference: null };
  const closest =
    mfaOnly ??
    candidates.reduce((best, next) => (next.length < best.length ? next : best), candidates[0] ?? []);
  const failing = closest.map((q) => checkOf(q, context));
  // Waiting only for data the device has not sent is not a refusal yet; the list still says what is awaited.
  const waiting = failing.every((f) => f.code === 'NO_DATA_YET');
  const access = mfaOnly && context.mfaEnrolled !== false ? 'mfa-needed' : waiting ? 'checking' : 'blocked';
  // A refusal carries the controller's reference to quote; a check still waiting for data is no refusal yet.
  const reference = access === 'checking' ? null : (asReference(service.refusalReference) ?? null);
  return { ...base, ...NO_STANDING, access, failing, mfaReason: mfaReasonOf(policies, false), reference };
}

/**
 * When a reachable service will be blocked unless the device is fixed: its earliest warning deadline or
 * exception expiry; null when nothing is due.
 */
export function blockedFrom(view: Pick<ServiceAccessView, 'warnings' | 'exceptionUntil'>): string | null {
  const due = [
    ...view.warnings.map((w) => w.enforceFrom),
    ...(view.exceptionUntil ? [view.exceptionUntil] : []),
  ];
  return due.sort((a, b) => Date.parse(a) - Date.parse(b))[0] ?? null;
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
