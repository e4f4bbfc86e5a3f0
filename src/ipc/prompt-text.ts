/**
 * The words of a TOTP prompt, shared by main (the notification) and the renderer (the prompt window, which
 * re-renders them every second as the grace period counts down), so both always say the same thing.
 */
import type { PromptView } from './views.js';

/** `4:32`, or `1:04:32` past an hour; never negative. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** "3 services", or the name when there is just one. */
export function servicesPhrase(services: readonly { name: string }[]): string {
  if (services.length === 1) return services[0]!.name;
  return `${services.length} services`;
}

/** Milliseconds left before the prompt's deadline; null without one. */
export function remainingMs(prompt: Pick<PromptView, 'deadline'>, now: number): number | null {
  return prompt.deadline === null ? null : Math.max(0, prompt.deadline - now);
}

/** "Enter your code within 4:32 to keep access to 3 services", and its variants. */
export function promptHeadline(
  prompt: Pick<PromptView, 'reason' | 'services' | 'deadline'>,
  now: number,
): string {
  if (prompt.reason === 'login' || prompt.services.length === 0) {
    return 'Enter the code from your authenticator app to finish signing in';
  }
  const what = servicesPhrase(prompt.services);
  const left = remainingMs(prompt, now);
  if (left === null || left === 0) return `Enter your code to restore access to ${what}`;
  return `Enter your code within ${formatCountdown(left)} to keep access to ${what}`;
}

/** Title of the one notification a prompt raises. */
export function promptTitle(prompt: Pick<PromptView, 'reason'>): string {
  switch (prompt.reason) {
    case 'wake':
      return 'Welcome back: authenticator code needed';
    case 'unlock':
      return 'Screen unlocked: authenticator code needed';
    case 'timeout':
      return 'Your MFA session is about to expire';
    default:
      return 'Authenticator code needed';
  }
}
