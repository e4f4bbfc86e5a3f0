/**
 * What the tray shows at a glance, derived from the session and the service list alone (pure, so it is
 * tested without Electron): disconnected, MFA needed, some services blocked, or everything reachable.
 */
import type { ServiceAccessView } from '../../src/api/service-access.js';
import type { ModeView, PromptView, SessionView } from '../ipc/views.js';
import { modeLine } from '../ipc/mode-line.js';

export type TrayState = 'all-reachable' | 'some-blocked' | 'mfa-needed' | 'disconnected';

export interface TrayInput {
  session: Pick<SessionView, 'status' | 'reachable'>;
  services: readonly Pick<ServiceAccessView, 'access' | 'name'>[];
  prompt?: PromptView | null;
  /** the tunnel's mode and why; shown under the state once known */
  mode?: ModeView;
}

export function trayState({ session, services, prompt }: TrayInput): TrayState {
  // A sign-in waiting only for a code is one code away from access, not disconnected.
  if (session.status === 'needs-code' && session.reachable) return 'mfa-needed';
  if (session.status !== 'signed-in' || !session.reachable) return 'disconnected';
  // A code is the fastest way back to access, so it outranks other failures.
  if (prompt || services.some((s) => s.access === 'mfa-needed')) return 'mfa-needed';
  if (services.some((s) => s.access === 'blocked')) return 'some-blocked';
  return 'all-reachable';
}

/** A sign-in that is under way says what it waits for, never "signed out" or "no services". */
const SIGN_IN_STEPS: Partial<Record<SessionView['status'], string>> = {
  'signing-in': 'signing in…',
  'needs-code': 'MFA code needed to finish signing in',
  'needs-enrollment': 'set up an authenticator app to finish signing in',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The tooltip: the state in a few words, with counts; the mode and why on a second line. */
export function trayTooltip(input: TrayInput): string {
  const state = stateTooltip(input);
  return input.mode ? `${state}\n${modeLine(input.mode)}` : state;
}

function stateTooltip(input: TrayInput): string {
  const state = trayState(input);
  const total = input.services.length;
  const count = (access: ServiceAccessView['access']) =>
    input.services.filter((s) => s.access === access).length;
  if (input.session.reachable && SIGN_IN_STEPS[input.session.status])
    return `Postern: ${SIGN_IN_STEPS[input.session.status]}`;
  switch (state) {
    case 'disconnected':
      return input.session.status === 'signed-out'
        ? 'Postern: signed out'
        : 'Postern: cannot reach the controller';
    case 'mfa-needed':
      return `Postern: enter your authenticator code (${plural(Math.max(count('mfa-needed'), 1), 'service')})`;
    case 'some-blocked':
      return `Postern: ${count('blocked')} of ${plural(total, 'service')} blocked`;
    default:
      if (count('checking') > 0) return 'Postern: checking this device…';
      return total === 0
        ? 'Postern: connected, no services'
        : `Postern: all ${plural(total, 'service')} reachable`;
  }
}

/** The label of a service in the tray's Services submenu. */
export function serviceMenuLabel(service: Pick<ServiceAccessView, 'access' | 'name'>): string {
  if (service.access === 'granted') return `${service.name}: reachable`;
  if (service.access === 'mfa-needed') return `${service.name}: needs your code`;
  if (service.access === 'checking') return `${service.name}: checking…`;
  return `${service.name}: blocked`;
}
