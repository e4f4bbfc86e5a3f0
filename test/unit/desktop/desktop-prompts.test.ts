/**
 * DesktopPrompts, the agent's PromptPort in the app: one notification per prompt (not per update or retry),
 * the small window for wake/unlock/timeout but the sign-in screen for a login, answers matched to the open
 * prompt, and the window closed when the agent is done with it.
 */
import { describe, expect, it } from 'vitest';
import { DesktopPrompts, type PromptSurface } from '../../../desktop/agent/desktop-prompts.js';
import type { TotpPrompt } from '../../../src/agent/prompts/prompt-port.js';
import { formatCountdown, promptHeadline } from '../../../src/api/prompts.js';
import type { PromptView } from '../../../desktop/ipc/views.js';

const NOW = 1_700_000_000_000;

function surface(mainVisible = false) {
  const calls: string[] = [];
  const notes: { title: string; body: string; onClick?: () => void }[] = [];
  const s: PromptSurface = {
    openPromptWindow: () => void calls.push('open'),
    closePromptWindow: () => void calls.push('close'),
    notify: (title, body, onClick) => void notes.push({ title, body, onClick }),
    mainWindowVisible: () => mainVisible,
    showMainWindow: (view) => void calls.push(`main:${view ?? ''}`),
  };
  return { s, calls, notes };
}

const unlock = (extra: Partial<TotpPrompt> = {}): TotpPrompt => ({
  reason: 'unlock',
  services: [
    { id: 's1', name: 'wiki' },
    { id: 's2', name: 'git' },
    { id: 's3', name: 'mail' },
  ],
  deadline: NOW + 272_000,
  attempt: 1,
  acceptsRecoveryCode: true,
  ...extra,
});

describe('DesktopPrompts', () => {
  it('opens the window with one notification carrying the countdown, and resolves with the answer', async () => {
    const { s, calls, notes } = surface();
    const prompts = new DesktopPrompts(s, () => NOW);
    const seen: (PromptView | null)[] = [];
    prompts.changes.on((v) => seen.push(v));
    const answer = prompts.promptTotp(unlock(), new AbortController().signal);
    expect(calls).toEqual(['open']);
    expect(notes.map((n) => [n.title, n.body])).toEqual([
      [
        'Screen unlocked: authenticator code needed',
        'Enter your code within 4:32 to keep access to wiki, git and mail',
      ],
    ]);
    const id = prompts.current()!.id;
    expect(prompts.answer(id + 1, '123456')).toBe(false);
    expect(prompts.answer(id, '123456')).toBe(true);
    await expect(answer).resolves.toBe('123456');
    expect(prompts.answer(id, '123456')).toBe(false);
    // The window stays, "checking", until the agent's verdict.
    expect(prompts.current()?.id).toBe(id);
    prompts.notify({ type: 'mfa-accepted', reason: 'unlock' });
    expect(calls).toEqual(['open', 'close']);
    expect(prompts.current()).toBeNull();
    expect(seen.at(-1)).toBeNull();
    // Clicking the notification brings the window back.
    notes[0]!.onClick!();
    expect(calls.at(-1)).toBe('open');
  });

  it('a refused code asks again in the same prompt, without another notification', async () => {
    const { s, notes } = surface();
    const prompts = new DesktopPrompts(s, () => NOW);
    const first = prompts.promptTotp(unlock(), new AbortController().signal);
    const id = prompts.current()!.id;
    prompts.answer(id, '000000');
    await first;
    void prompts.promptTotp(
      unlock({ attempt: 2, error: 'That code was not accepted.' }),
      new AbortController().signal,
    );
    expect(prompts.current()).toMatchObject({ id, attempt: 2, error: 'That code was not accepted.' });
    prompts.updatePrompt(
      unlock({ attempt: 2, services: [{ id: 's4', name: 'vpn' }], deadline: NOW + 10_000 }),
    );
    expect(prompts.current()).toMatchObject({
      id,
      services: [{ id: 's4', name: 'vpn' }],
      deadline: NOW + 10_000,
    });
    expect(notes).toHaveLength(1);
  });

  it('asks for a sign-in code on the visible sign-in screen: no window, no notification', () => {
    const { s, calls, notes } = surface(true);
    const prompts = new DesktopPrompts(s, () => NOW);
    void prompts.promptTotp(
      { reason: 'login', services: [], attempt: 1, acceptsRecoveryCode: true },
      new AbortController().signal,
    );
    expect(prompts.current()?.reason).toBe('login');
    expect(calls).toEqual([]);
    expect(notes).toEqual([]);
  });

  it('closes and resolves null when the agent no longer needs the code', async () => {
    const { s, calls } = surface();
    const prompts = new DesktopPrompts(s, () => NOW);
    const abort = new AbortController();
    const answer = prompts.promptTotp(unlock(), abort.signal);
    abort.abort();
    await expect(answer).resolves.toBeNull();
    expect(calls).toEqual(['open', 'close']);
    expect(prompts.current()).toBeNull();
  });

  it('routes enrollment and sign-out notices to the right screen', () => {
    const { s, calls, notes } = surface();
    const prompts = new DesktopPrompts(s, () => NOW);
    prompts.notify({ type: 'mfa-enrollment-required', services: [{ id: 's1', name: 'wiki' }] });
    prompts.notify({ type: 'signed-out', message: 'sign in again' });
    prompts.notify({ type: 'controller-unreachable', controllerUrl: 'http://x' });
    expect(notes.map((n) => n.title)).toEqual(['Set up an authenticator app', 'Signed out of Postern']);
    expect(notes[0]!.body).toBe('wiki needs MFA. Set up an authenticator app to keep access.');
    notes[0]!.onClick!();
    expect(calls).toEqual(['main:mfa']);
  });
});

describe('prompt words', () => {
  it('counts down as m:ss, past an hour as h:mm:ss', () => {
    expect(formatCountdown(272_000)).toBe('4:32');
    expect(formatCountdown(59_001)).toBe('1:00');
    expect(formatCountdown(3_725_000)).toBe('1:02:05');
    expect(formatCountdown(-5)).toBe('0:00');
  });

  it('names one service, counts several, and changes once the deadline passed', () => {
    const view = { reason: 'unlock' as const, services: [{ id: 'a', name: 'wiki' }], deadline: NOW + 60_000 };
    expect(promptHeadline(view, NOW)).toBe('Enter your code within 1:00 to keep access to wiki');
    expect(promptHeadline(view, NOW + 61_000)).toBe('Enter your code to restore access to wiki');
    expect(promptHeadline({ ...view, reason: 'login', services: [] }, NOW)).toBe(
      'Enter the code from your authenticator app to finish signing in',
    );
  });
});
