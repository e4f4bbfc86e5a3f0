/**
 * What the agent tells the user when it needs an authenticator code, and the notices it raises. Pure data
 * and wording, shared by the CLI and (through the IPC schema) the renderer, so both say the same thing:
 * "Enter your code within 4:32 to keep access to 3 services".
 */

import { referenceLabel } from './refusal-reference.js';

/** Why a code is needed: a login owes TOTP, a wake or unlock started a grace period, a timeout is near. */
export type PromptReason = 'login' | 'wake' | 'unlock' | 'timeout';

export interface PromptService {
  id: string;
  name: string;
}

export interface TotpPrompt {
  reason: PromptReason;
  /** The services the code keeps or restores access to (empty for a plain login). */
  services: PromptService[];
  /** Epoch ms when access ends without a code (grace period or timeout), when known. */
  deadline?: number;
  /** 1 for the first ask; more after a refused code. */
  attempt: number;
  /** Why the previous code was refused. */
  error?: string;
  /** Recovery codes are accepted wherever a TOTP code is (POST /authenticate/mfa). */
  acceptsRecoveryCode: boolean;
}

export type AgentNotice =
  | { type: 'mfa-accepted'; reason: PromptReason }
  /** The code could not be used (too many attempts, rate limited); access stays as it is. */
  | { type: 'mfa-failed'; reason: PromptReason; message: string }
  /** A code is needed but the identity has no authenticator yet: route the user to enrollment. */
  | { type: 'mfa-enrollment-required'; services: PromptService[] }
  | { type: 'controller-unreachable'; controllerUrl: string }
  | { type: 'controller-reachable'; controllerUrl: string }
  /** Stored credentials no longer work; the user must sign in again. */
  | { type: 'signed-out'; message: string }
  /**
   * A connection through the tunnel was refused; `reasons` say what to fix, in plain words; `reference` is the
   * controller's for the refusal (`7K2Q-PX`), to quote to an administrator, when it gave one.
   */
  | { type: 'service-refused'; service: string; reasons: string[]; reference?: string }
  /** Access ended while connections were open: the tunnel cut them. */
  | { type: 'service-cut'; service: string }
  /** An administrator removed this identity's MFA (a lost phone): it must be set up again. */
  | { type: 'mfa-reset' };

/** `m:ss` (or `h:mm:ss`) left until `deadline`; never negative. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a prompt needs to be worded: a TotpPrompt (deadline optional) or the IPC view (deadline null). */
export interface PromptWords {
  reason: PromptReason;
  services: readonly { name: string }[];
  deadline?: number | null;
}

/** The services by name: "wiki", "wiki and git", "wiki, git and crm", "wiki, git and 3 more services". */
export function servicesPhrase(services: readonly { name: string }[]): string {
  const names = services.map((s) => s.name);
  if (names.length <= 1) return names[0] ?? 'your services';
  if (names.length <= 3) return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `${names.slice(0, 2).join(', ')} and ${plural(names.length - 2, 'more service')}`;
}

/** Milliseconds left before the prompt's deadline; null without one. */
export function remainingMs(prompt: Pick<PromptWords, 'deadline'>, now: number): number | null {
  return prompt.deadline === null || prompt.deadline === undefined
    ? null
    : Math.max(0, prompt.deadline - now);
}

/** Why the code is asked for, in one sentence: the user should never wonder what triggered it. */
export function promptWhy(prompt: PromptWords, now: number): string {
  switch (prompt.reason) {
    case 'login':
      return 'Your account needs an authenticator code to finish signing in.';
    case 'wake':
      return 'This device woke from sleep.';
    case 'unlock':
      return 'This device was unlocked.';
    case 'timeout':
      return remainingMs(prompt, now) === 0
        ? 'Your last authenticator code has expired.'
        : 'Your last authenticator code is about to expire.';
  }
}

/** "Enter your code within 4:32 to keep access to wiki and git", and its variants. */
export function promptHeadline(prompt: PromptWords, now: number): string {
  if (prompt.reason === 'login' || prompt.services.length === 0) {
    return 'Enter the code from your authenticator app to finish signing in';
  }
  const what = servicesPhrase(prompt.services);
  const left = remainingMs(prompt, now);
  if (left === null || left === 0) return `Enter your code to restore access to ${what}`;
  return `Enter your code within ${formatCountdown(left)} to keep access to ${what}`;
}

/** Title of the one notification a prompt raises: "has expired" once the deadline passed, as the body says. */
export function promptTitle(prompt: Pick<PromptWords, 'reason' | 'deadline'>, now: number): string {
  switch (prompt.reason) {
    case 'wake':
      return 'Welcome back: authenticator code needed';
    case 'unlock':
      return 'Screen unlocked: authenticator code needed';
    case 'timeout':
      return remainingMs(prompt, now) === 0
        ? 'Your authenticator code has expired'
        : 'Your authenticator code is about to expire';
    default:
      return 'Authenticator code needed';
  }
}

/** The whole prompt in two sentences, for a terminal or a notification body. */
export function describeTotpPrompt(prompt: PromptWords, now: number): string {
  if (prompt.reason === 'login' && prompt.services.length === 0) return promptWhy(prompt, now);
  return `${promptWhy(prompt, now)} ${promptHeadline(prompt, now)}.`;
}

/** One line per notice, for a terminal or a notification body. */
export function describeNotice(notice: AgentNotice): string {
  switch (notice.type) {
    case 'mfa-accepted':
      return 'Code accepted.';
    case 'mfa-failed':
      return notice.message;
    case 'mfa-enrollment-required':
      return `Set up an authenticator app (MFA) to reach ${plural(notice.services.length, 'service')}.`;
    case 'controller-unreachable':
      return `Cannot reach the controller at ${notice.controllerUrl}; retrying.`;
    case 'controller-reachable':
      return `Connected to the controller at ${notice.controllerUrl}.`;
    case 'signed-out':
      return notice.message;
    case 'service-refused':
      return `${notice.service} is blocked: ${notice.reasons.join(' ')}${notice.reference ? ` (${referenceLabel(notice.reference)})` : ''}`;
    case 'service-cut':
      return `Access to ${notice.service} ended; its open connections were cut.`;
    case 'mfa-reset':
      return 'Your administrator reset your MFA. Set up your authenticator app again to reach services that need it.';
  }
}
