/**
 * What the tray shows at a glance, derived from the session and the service list alone (pure, so it is
 * tested without Electron): disconnected, MFA needed, some services blocked, some reachable only until a
 * warn-mode deadline, or everything reachable.
 */
import { dateInWords } from '../../src/api/deadlines.js';
import { blockedFrom, type ServiceAccessView } from '../../src/api/service-access.js';
import { referenceLabel } from '../../src/api/refusal-reference.js';
import type { ModeView, PromptView, SessionView } from '../ipc/views.js';
import { modeLine } from '../ipc/mode-line.js';

export type TrayState = 'all-reachable' | 'some-warned' | 'some-blocked' | 'mfa-needed' | 'disconnected';

/** A service as the tray reads it; the deadlines only matter to a warned one. */
export type TrayService = Pick<ServiceAccessView, 'access' | 'name'> &
  Partial<Pick<ServiceAccessView, 'warnings' | 'exceptionUntil' | 'reference'>>;

export interface TrayInput {
  session: Pick<SessionView, 'status' | 'reachable'>;
  services: readonly TrayService[];
  prompt?: PromptView | null;
  /** the tunnel's mode and why; shown under the state once known */
  mode?: ModeView;
  /** for tests: deadlines are otherwise said in the user's own time zone */
  timeZone?: string;
}

export function trayState({ session, services, prompt }: TrayInput): TrayState {
  // A sign-in waiting only for a code is one code away from access, not disconnected.
  if (session.status === 'needs-code' && session.reachable) return 'mfa-needed';
  if (session.status !== 'signed-in' || !session.reachable) return 'disconnected';
  // A code is the fastest way back to access, so it outranks other failures.
  if (prompt || services.some((s) => s.access === 'mfa-needed')) return 'mfa-needed';
  if (services.some((s) => s.access === 'blocked')) return 'some-blocked';
  // Still reachable, but not for long: neither the red of a block nor the all-clear.
  if (services.some((s) => s.access === 'warned')) return 'some-warned';
  return 'all-reachable';
}

/** A sign-in that is under way says what it waits for, never "signed out" or "no services". */
const SIGN_IN_STEPS: Partial<Record<SessionView['status'], string>> = {
  'signing-in': 'signing in…',
  'needs-code': 'MFA code needed to finish signing in',
  'needs-enrollment': 'set up an authenticator app to finish signing in',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** When a warned service is blocked unless fixed; null for one that is not warned or names no date. */
function warnedFrom(service: TrayService): string | null {
  if (service.access !== 'warned') return null;
  return blockedFrom({ warnings: service.warnings ?? [], exceptionUntil: service.exceptionUntil ?? null });
}

/** `wiki will be blocked from 3 March 2027, 09:00` (the earliest of several); null when none is warned. */
export function warnedLine(services: readonly TrayService[], timeZone?: string): string | null {
  const warned = services
    .map((s) => ({ name: s.name, from: warnedFrom(s) }))
    .filter((s): s is { name: string; from: string } => s.from !== null)
    .sort((a, b) => Date.parse(a.from) - Date.parse(b.from));
  const first = warned[0];
  if (!first) return null;
  const who =
    warned.length === 1 ? first.name : `${first.name} and ${plural(warned.length - 1, 'other service')}`;
  return `${who} will be blocked from ${dateInWords(first.from, timeZone)}`;
}

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
    case 'some-blocked': {
      const blocked = `Postern: ${count('blocked')} of ${plural(total, 'service')} blocked`;
      const warned = warnedLine(input.services, input.timeZone);
      return warned ? `${blocked}; ${warned}` : blocked;
    }
    case 'some-warned':
      return `Postern: ${warnedLine(input.services, input.timeZone) ?? 'a service will be blocked soon'}`;
    default:
      if (count('checking') > 0) return 'Postern: checking this device…';
      return total === 0
        ? 'Postern: connected, no services'
        : `Postern: all ${plural(total, 'service')} reachable`;
  }
}

/** The label of a service in the tray's Services submenu. */
export function serviceMenuLabel(service: TrayService, timeZone?: string): string {
  if (service.access === 'granted') return `${service.name}: reachable`;
  if (service.access === 'warned') {
    const from = warnedFrom(service);
    return from
      ? `${service.name}: reachable, blocked from ${dateInWords(from, timeZone)}`
      : `${service.name}: reachable for now`;
  }
  // A refusal names its reference, so the menu alone answers "what do I tell the help desk".
  const ref = service.reference ? ` (${referenceLabel(service.reference)})` : '';
  if (service.access === 'mfa-needed') return `${service.name}: needs your code${ref}`;
  if (service.access === 'checking') return `${service.name}: checking…`;
  return `${service.name}: blocked${ref}`;
}
