/** The tray's state follows the session and service list (pure), and the tray shows it (fake electron). */
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../fakes/electron.js'));

const fake = await import('../../fakes/electron.js');
import type { ServiceAccess } from '../../../src/api/service-access.js';
const { trayState, trayTooltip } = await import('../../../desktop/agent/tray-state.js');
const { AppTray, trayMenuTemplate } = await import('../../../desktop/main/tray.js');
type TrayInput = import('../../../desktop/agent/tray-state.js').TrayInput;
type PromptView = import('../../../desktop/ipc/views.js').PromptView;

const signedIn = { status: 'signed-in', reachable: true } as const;
const svc = (name: string, access: ServiceAccess) => ({ name, access });
const prompt: PromptView = {
  id: 1,
  reason: 'unlock',
  services: [],
  deadline: null,
  attempt: 1,
  error: null,
  acceptsRecoveryCode: true,
};

beforeEach(() => fake.resetFakeElectron());

describe('trayState', () => {
  it.each<[string, TrayInput, string]>([
    ['signed out', { session: { status: 'signed-out', reachable: true }, services: [] }, 'disconnected'],
    ['signing in', { session: { status: 'signing-in', reachable: true }, services: [] }, 'disconnected'],
    [
      'controller unreachable',
      { session: { ...signedIn, reachable: false }, services: [svc('a', 'granted')] },
      'disconnected',
    ],
    [
      'everything granted',
      { session: signedIn, services: [svc('a', 'granted'), svc('b', 'granted')] },
      'all-reachable',
    ],
    ['no services', { session: signedIn, services: [] }, 'all-reachable'],
    [
      'one blocked',
      { session: signedIn, services: [svc('a', 'granted'), svc('b', 'blocked')] },
      'some-blocked',
    ],
    [
      'one waiting for a code',
      { session: signedIn, services: [svc('a', 'blocked'), svc('b', 'mfa-needed')] },
      'mfa-needed',
    ],
    ['a prompt open', { session: signedIn, services: [svc('a', 'granted')], prompt }, 'mfa-needed'],
  ])('%s', (_name, input, expected) => {
    expect(trayState(input)).toBe(expected);
  });

  it('says it in the tooltip with counts', () => {
    expect(trayTooltip({ session: signedIn, services: [svc('a', 'granted'), svc('b', 'granted')] })).toBe(
      'Postern: all 2 services reachable',
    );
    expect(trayTooltip({ session: signedIn, services: [svc('a', 'granted'), svc('b', 'blocked')] })).toBe(
      'Postern: 1 of 2 services blocked',
    );
    expect(trayTooltip({ session: signedIn, services: [svc('a', 'mfa-needed')] })).toBe(
      'Postern: enter your authenticator code (1 service)',
    );
    expect(trayTooltip({ session: { status: 'signed-out', reachable: true }, services: [] })).toBe(
      'Postern: signed out',
    );
    expect(trayTooltip({ session: signedIn, services: [svc('a', 'granted'), svc('b', 'checking')] })).toBe(
      'Postern: checking this device…',
    );
  });

  it('says what a half-finished sign-in waits for, not "signed out"', () => {
    const needsCode = { session: { status: 'needs-code' as const, reachable: true }, services: [] };
    expect(trayState(needsCode)).toBe('mfa-needed');
    expect(trayTooltip(needsCode)).toBe('Postern: MFA code needed to finish signing in');
    expect(trayTooltip({ ...needsCode, session: { status: 'needs-enrollment', reachable: true } })).toBe(
      'Postern: set up an authenticator app to finish signing in',
    );
    expect(trayTooltip({ ...needsCode, session: { status: 'needs-code', reachable: false } })).toBe(
      'Postern: cannot reach the controller',
    );
  });
});

describe('a service kept only by warn mode', () => {
  const MARCH = '2027-03-03T09:00:00.000Z';
  const warned = (name: string, enforceFrom = MARCH) => ({
    name,
    access: 'warned' as const,
    exceptionUntil: null,
    warnings: [
      { id: 'c', queryType: 'OS', paths: [], explanation: 'Update macOS to 14.4 or later', enforceFrom },
    ],
  });

  it('is its own state, below a block, and the tooltip says from when it will be blocked', () => {
    const input: TrayInput = {
      session: signedIn,
      services: [svc('a', 'granted'), warned('wiki')],
      timeZone: 'UTC',
    };
    expect(trayState(input)).toBe('some-warned');
    expect(trayTooltip(input)).toBe('Postern: wiki will be blocked from 3 March 2027, 09:00');
    const two = { ...input, services: [warned('git', '2027-04-01T00:00:00.000Z'), warned('wiki')] };
    expect(trayTooltip(two)).toBe(
      'Postern: wiki and 1 other service will be blocked from 3 March 2027, 09:00',
    );
    const blocked = { ...input, services: [svc('db', 'blocked'), warned('wiki')] };
    expect(trayState(blocked)).toBe('some-blocked');
    expect(trayTooltip(blocked)).toBe(
      'Postern: 1 of 2 services blocked; wiki will be blocked from 3 March 2027, 09:00',
    );
    expect(trayState({ ...input, services: [svc('db', 'mfa-needed'), warned('wiki')] })).toBe('mfa-needed');
  });

  it('the Services menu names its deadline; the icon is its own', () => {
    const act = { open: vi.fn(), openPrompt: vi.fn(), signOut: vi.fn(), quit: vi.fn() };
    const input: TrayInput = { session: signedIn, services: [warned('wiki')], timeZone: 'UTC' };
    const menu = trayMenuTemplate(input, act);
    const services = menu.find((item) => item.label === 'Services')!.submenu as { label: string }[];
    expect(services.map((s) => s.label)).toEqual(['wiki: reachable, blocked from 3 March 2027, 09:00']);
    const tray = new AppTray(act);
    const native = fake.Tray.all[0]!;
    for (const services of [[svc('a', 'granted')], [warned('wiki')], [svc('b', 'blocked')]])
      tray.update({ session: signedIn, services });
    expect(tray.current).toBe('some-blocked');
    const images = native.setImage.mock.calls.map(([image]) =>
      (image as { buffer: Buffer }).buffer.toString('base64'),
    );
    expect(new Set(images).size).toBe(3);
  });
});

describe('AppTray', () => {
  const actions = () => ({ open: vi.fn(), openPrompt: vi.fn(), signOut: vi.fn(), quit: vi.fn() });

  it('redraws the icon only when the state changes, and always the tooltip and menu', () => {
    const tray = new AppTray(actions());
    const native = fake.Tray.all[0]!;
    tray.update({ session: signedIn, services: [svc('wiki', 'granted')] });
    expect(tray.current).toBe('all-reachable');
    tray.update({ session: signedIn, services: [svc('wiki', 'granted'), svc('git', 'granted')] });
    expect(native.setImage).toHaveBeenCalledTimes(1);
    tray.update({ session: signedIn, services: [svc('wiki', 'granted'), svc('git', 'blocked')] });
    expect(tray.current).toBe('some-blocked');
    expect(native.setImage).toHaveBeenCalledTimes(2);
    expect(native.tooltip).toBe('Postern: 1 of 2 services blocked');
    expect(native.setContextMenu).toHaveBeenCalledTimes(3);
    // Each state has its own picture.
    const images = native.setImage.mock.calls.map(([image]) =>
      (image as { buffer: Buffer }).buffer.toString('base64'),
    );
    expect(new Set(images).size).toBe(2);
  });

  it('offers open, services, MFA, sign out and quit', () => {
    const act = actions();
    const input: TrayInput = { session: signedIn, services: [svc('wiki', 'granted'), svc('git', 'blocked')] };
    const menu = trayMenuTemplate(input, act);
    const labels = menu.map((item) => item.label).filter(Boolean);
    expect(labels).toEqual([
      'Postern: 1 of 2 services blocked',
      'Open Postern',
      'Services',
      'MFA…',
      'Sign out',
      'Quit Postern',
    ]);
    const byLabel = (label: string) => menu.find((item) => item.label === label)!;
    const services = byLabel('Services').submenu as { label: string; click: () => void }[];
    expect(services.map((s) => s.label)).toEqual(['wiki: reachable', 'git: blocked']);
    services[1]!.click();
    expect(act.open).toHaveBeenCalledWith('services');
    (byLabel('MFA…').click as () => void)();
    expect(act.open).toHaveBeenCalledWith('mfa');
    (byLabel('Sign out').click as () => void)();
    (byLabel('Quit Postern').click as () => void)();
    expect(act.signOut).toHaveBeenCalled();
    expect(act.quit).toHaveBeenCalled();
  });

  it('disables what needs a session while signed out, and offers the open prompt', () => {
    const out = trayMenuTemplate(
      { session: { status: 'signed-out', reachable: true }, services: [] },
      actions(),
    );
    expect(out.find((i) => i.label === 'Sign out')!.enabled).toBe(false);
    expect(out.find((i) => i.label === 'MFA…')!.enabled).toBe(false);
    const act = actions();
    const withPrompt = trayMenuTemplate({ session: signedIn, services: [], prompt }, act);
    (withPrompt.find((i) => i.label === 'Enter authenticator code…')!.click as () => void)();
    expect(act.openPrompt).toHaveBeenCalled();
  });

  it('says a half-finished sign-in waits for a code instead of "No services"', () => {
    const menu = trayMenuTemplate(
      { session: { status: 'needs-code', reachable: true }, services: [] },
      actions(),
    );
    const services = menu.find((i) => i.label === 'Services')!.submenu as { label: string }[];
    expect(services.map((s) => s.label)).toEqual(['MFA code needed to finish signing in']);
    expect(menu[0]!.label).toBe('Postern: MFA code needed to finish signing in');
  });
});
