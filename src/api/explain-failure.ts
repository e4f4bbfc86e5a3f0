/**
 * Plain words for a failing posture query: what the user can do about it. One module for every place that
 * tells a user (the CLI's services table, the desktop list, tray notifications, refused tunnels), so it is
 * pure TypeScript with no Node imports.
 *
 * The words come from the reason the controller gives for the user's own device (`reason.code` and its
 * facts). A controller that gives no reason (an OpenZiti one) still gets advice, only less precise. A code
 * with no words of its own here reads its type's descriptor (posture-types/), so a new type needs nothing here.
 */
import type { AllowedOperatingSystem, PostureFailureReason } from './posture-reasons.js';
import { descriptorOfReason, postureTypeDescriptor } from './posture-types/index.js';
import type { PostureQuery } from './services.js';

export interface ExplainContext {
  /** The device's OS as the agent names it (`Linux`, `Windows`, `macOS`), when the reason does not say. */
  osName?: string;
  /** MFA: `false` when the identity has no authenticator set up yet. */
  mfaEnrolled?: boolean;
}

/** The file name of a Windows or POSIX path. */
export function binaryName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** `6.8.0` reads better as `6.8`; a real patch level stays. */
function shortVersion(v: string): string {
  return v.replace(/^(\d+\.\d+)\.0$/, '$1');
}

/** "6.8 or later", "older than 15", "14.5 or 15.x": one range as a person says it. */
function rangeInWords(range: string): string {
  const first = range.split('||')[0]!.trim();
  const alternatives = range.split('||').length > 1;
  const lower = /(?:^|\s)>=?\s*v?(\d+(?:\.\d+){0,2})/.exec(first);
  const upper = /(?:^|\s)<=?\s*v?(\d+(?:\.\d+){0,2})/.exec(first);
  if (!alternatives && lower && upper)
    return `${shortVersion(lower[1]!)} or later, older than ${shortVersion(upper[1]!)}`;
  if (!alternatives && lower) return `${shortVersion(lower[1]!)} or later`;
  if (!alternatives && upper) return `older than ${shortVersion(upper[1]!)}`;
  return range.trim();
}

function osInWords(os: AllowedOperatingSystem): string {
  if (os.versions.length === 0) return os.type;
  return `${os.type} ${os.versions.map(rangeInWords).join(' or ')}`;
}

const oxford = (items: string[], word: 'or' | 'and') =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`;

function explainOsType(reason: PostureFailureReason, ctx: ExplainContext): string {
  const allowed = (reason.allowed ?? []).map(osInWords);
  const mine = reason.osType || ctx.osName;
  const needs = allowed.length
    ? `This service needs ${oxford(allowed, 'or')}`
    : 'This service needs another OS';
  return mine ? `${needs}; this device runs ${mine}` : needs;
}

function explainOsVersion(reason: PostureFailureReason, ctx: ExplainContext): string {
  const os = reason.osType || ctx.osName || 'your operating system';
  const ranges = (reason.allowed ?? []).flatMap((r) => r.versions);
  const from = reason.osVersion ? ` (this device runs ${reason.osVersion})` : '';
  const first = ranges[0];
  if (first === undefined) return `Update ${os} to a version the policy allows${from}`;
  const words = oxford(ranges.map(rangeInWords), 'or');
  if (ranges.length === 1 && /^older than /.test(words)) return `Use a ${os} version ${words}${from}`;
  return `Update ${os} to ${words}${from}`;
}

/** The controller does not name the domains a check allows; the check's remediation text may say more. */
function explainDomain(reason: PostureFailureReason): string {
  const join = "Join your organisation's Windows domain";
  return reason.domain ? `${join} (this device is in ${reason.domain})` : join;
}

/** A descriptor's sentence as these words are written: no final full stop (a caller may add to it). */
const sentence = (words: string) => words.replace(/\.$/, '');

/** The reason's words from its type's descriptor, with the facts the reason carries. */
function explainFromDescriptor(reason: PostureFailureReason): string {
  const words = descriptorOfReason(reason.code)?.reasons[reason.code];
  if (words === undefined) return 'Meet the posture check the policy requires';
  if (reason.code === 'SCREEN_LOCK_TOO_LATE' && reason.maxIdleMinutes !== undefined) {
    const now = reason.idleMinutes !== undefined ? ` (now ${reason.idleMinutes})` : '';
    return `The screen locks too late: set it to lock after at most ${reason.maxIdleMinutes} idle minutes${now}`;
  }
  if (reason.code === 'AGENT_VERSION_OUT_OF_RANGE' && reason.versions) {
    const mine = reason.agentVersion ? ` (this device runs ${reason.agentVersion})` : '';
    return `Update Postern to ${rangeInWords(reason.versions)}${mine}`;
  }
  return reason.unknownReason ? `${sentence(words)} (${reason.unknownReason})` : sentence(words);
}

function explainProcess(code: string, path: string | undefined): string {
  if (!path) return 'Start the program the policy requires';
  const name = binaryName(path);
  switch (code) {
    case 'PROCESS_HASH_NOT_APPROVED':
      return `${name} is running but is not an approved build: install the approved version at ${path}`;
    case 'PROCESS_SIGNER_NOT_APPROVED':
      return `${name} is running but is not signed by an approved publisher: reinstall it at ${path}`;
    case 'NO_DATA_YET':
      return `Waiting for this device to report whether ${name} runs (${path})`;
    default:
      return `Start ${name} (${path})`;
  }
}

/** AnyOf: one fix among several is enough, and the words say so. */
function explainProcessMulti(reason: PostureFailureReason): string {
  const each = (reason.processes ?? []).map((p) => explainProcess(p.code, p.path));
  if (each.length === 0) return 'Start the programs the policy requires';
  if (reason.semantic === 'AnyOf' && each.length > 1) return `Any one of these: ${each.join('; or ')}`;
  return each.join('; ');
}

function minutes(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

/** `4:05` left of a grace period. */
export function clockTime(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function explainMfa(reason: PostureFailureReason, ctx: ExplainContext): string {
  if (ctx.mfaEnrolled === false) return 'Set up an authenticator app (MFA) for your account';
  const left = reason.secondsLeft ? ` within ${clockTime(reason.secondsLeft)}` : '';
  switch (reason.code) {
    case 'MFA_TIMED_OUT':
      return reason.timeoutSeconds
        ? `Your last authenticator code is more than ${minutes(reason.timeoutSeconds)} old: enter a new one`
        : 'Your last authenticator code has expired: enter a new one';
    case 'MFA_NEEDED_AFTER_WAKE':
      return `This device woke from sleep: enter your authenticator code${left}`;
    case 'MFA_NEEDED_AFTER_UNLOCK':
      return `This device was unlocked: enter your authenticator code${left}`;
    default:
      return 'Enter your authenticator code';
  }
}

const MFA_CODES: readonly string[] = [
  'MFA_REQUIRED',
  'MFA_TIMED_OUT',
  'MFA_NEEDED_AFTER_WAKE',
  'MFA_NEEDED_AFTER_UNLOCK',
];

/** What the user must do about one reason. */
export function explainReason(reason: PostureFailureReason, ctx: ExplainContext = {}): string {
  if (reason.processes) return explainProcessMulti(reason);
  switch (reason.code) {
    case 'NO_DATA_YET':
      if (reason.path) return explainProcess(reason.code, reason.path);
      return `Waiting for this device to report ${postureTypeDescriptor(reason.missing ?? '')?.waitingFor ?? 'its state'}`;
    case 'OS_TYPE_NOT_ALLOWED':
      return explainOsType(reason, ctx);
    case 'OS_VERSION_OUT_OF_RANGE':
      return explainOsVersion(reason, ctx);
    case 'MAC_NOT_ALLOWED':
      return 'Connect from an allowed network adapter';
    case 'DOMAIN_MISMATCH':
      return explainDomain(reason);
    case 'PROCESS_NOT_RUNNING':
    case 'PROCESS_HASH_NOT_APPROVED':
    case 'PROCESS_SIGNER_NOT_APPROVED':
      return explainProcess(reason.code, reason.path);
    default:
      return MFA_CODES.includes(reason.code) ? explainMfa(reason, ctx) : explainFromDescriptor(reason);
  }
}

/** When the controller gives no reason: advice from the query alone. */
function explainWithoutReason(query: PostureQuery, ctx: ExplainContext): string {
  const paths = [query.process?.path, ...(query.processes ?? []).map((p) => p.path)].filter(
    (p): p is string => typeof p === 'string' && p !== '',
  );
  switch (query.queryType) {
    case 'OS':
      return `Use an operating system and version the policy allows${ctx.osName ? ` (this device runs ${ctx.osName})` : ''}`;
    case 'MAC':
      return 'Connect from an allowed network adapter';
    case 'DOMAIN':
      return "Join your organisation's Windows domain";
    case 'PROCESS':
    case 'PROCESS_MULTI': {
      // Without a reason the semantic is unknown too: name the programs without saying "all" or "one of".
      const each = paths.map((p) => `${binaryName(p)} (${p})`);
      if (each.length === 0) return 'Start the programs the policy requires';
      if (each.length === 1) return `Make sure ${each[0]} runs in an approved build`;
      return `Make sure the programs the policy names run in approved builds: ${each.join(', ')}`;
    }
    case 'MFA':
      return explainMfa({ code: 'MFA_REQUIRED' }, ctx);
    default: {
      const type = postureTypeDescriptor(query.queryType);
      return type ? `Make sure ${type.description}` : `Meet the ${query.queryType} posture check`;
    }
  }
}

/** What the user must do about one failing posture query. */
export function explainQuery(query: PostureQuery, ctx: ExplainContext = {}): string {
  return query.reason ? explainReason(query.reason, ctx) : explainWithoutReason(query, ctx);
}
