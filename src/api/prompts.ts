/**
 * What the agent tells the user when it needs an authenticator code, and the notices it raises. Pure data
 * and wording, shared by the CLI and (through the IPC schema) the renderer, so both say the same thing:
 * "Enter your code within 4:32 to keep access to 3 services".
 */

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
  /** A connection through the tunnel was refused; `reasons` say what to fix, in plain words. */
  | { type: 'service-refused'; service: string; reasons: string[] }
  /** Access ended while connections were open: the tunnel cut them. */
  | { type: 'service-cut'; service: string };

/** `m:ss` (or `h:mm:ss`) left until `deadline`; never negative. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One sentence for a prompt, e.g. "Your device was unlocked. Enter your code within 4:32 to keep access to 3 services." */
export function describeTotpPrompt(prompt: TotpPrompt, now: number): string {
  const lead = {
    login: 'Signing in needs your authenticator code.',
    wake: 'Your device woke from sleep.',
    unlock: 'Your device was unlocked.',
    timeout: 'Your authenticator check is about to expire.',
  }[prompt.reason];
  if (prompt.reason === 'login' && prompt.services.length === 0) return lead;
  const what = prompt.services.length
    ? `keep access to ${plural(prompt.services.length, 'service')}`
    : 'keep access';
  const when = prompt.deadline === undefined ? '' : ` within ${formatCountdown(prompt.deadline - now)}`;
  return `${lead} Enter your code${when} to ${what}.`;
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
      return `${notice.service} is blocked: ${notice.reasons.join(' ')}`;
    case 'service-cut':
      return `Access to ${notice.service} ended; its open connections were cut.`;
  }
}
