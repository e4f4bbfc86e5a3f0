/**
 * The desktop's view of the tunnel: a refused or cut connection becomes one notification per service per
 * quiet period (a browser opens many connections at once), with the reasons as the body; listeners opening
 * or closing redraw the list; unsubscribing stops all of it.
 */
import { describe, expect, it } from 'vitest';
import { DesktopPrompts, type PromptSurface } from '../../../desktop/agent/desktop-prompts.js';
import { NOTICE_QUIET_MS, wireTunnelNotices } from '../../../desktop/agent/tunnel-view.js';
import { TunnelManager } from '../../../src/agent/tunnel/tunnel-manager.js';
import type { TunnelEvent } from '../../../src/agent/tunnel/tunnel-events.js';

function world() {
  const notes: { title: string; body: string }[] = [];
  const shown: string[] = [];
  const surface: PromptSurface = {
    openPromptWindow: () => undefined,
    closePromptWindow: () => undefined,
    notify: (title, body, onClick) => {
      notes.push({ title, body });
      onClick?.();
    },
    mainWindowVisible: () => false,
    showMainWindow: (view) => void shown.push(view ?? ''),
  };
  // A real manager, never started: only its event emitter is used.
  const tunnel = new TunnelManager({
    createSession: () => Promise.reject(new Error('unused')),
    reasonsFor: async () => [],
    socksPort: null,
  });
  let now = 1_000_000;
  let redraws = 0;
  const off = wireTunnelNotices(
    tunnel,
    new DesktopPrompts(surface),
    () => redraws++,
    () => now,
  );
  const emit = (event: TunnelEvent) => tunnel.events.emit('event', event);
  return { notes, shown, emit, off, redraws: () => redraws, advance: (ms: number) => (now += ms) };
}

describe('tunnel notices', () => {
  it('says which service is blocked and why, once per quiet period, and opens the service list', () => {
    const w = world();
    const refused: TunnelEvent = {
      type: 'refused',
      service: 'payroll',
      reasons: ['Start falcond from /opt/CrowdStrike/falcond.'],
    };
    w.emit(refused);
    w.emit(refused);
    w.emit({ ...refused, service: 'wiki' });
    expect(w.notes).toEqual([
      { title: 'payroll is blocked', body: 'Start falcond from /opt/CrowdStrike/falcond.' },
      { title: 'wiki is blocked', body: 'Start falcond from /opt/CrowdStrike/falcond.' },
    ]);
    expect(w.shown).toEqual(['services', 'services']);
    w.advance(NOTICE_QUIET_MS);
    w.emit(refused);
    expect(w.notes).toHaveLength(3);
  });

  it('tells the user when open connections were cut, not once per connection', () => {
    const w = world();
    for (let i = 0; i < 20; i++) w.emit({ type: 'revoked', service: 'git' });
    expect(w.notes).toEqual([
      {
        title: 'Connection to git cut',
        body: 'Access to this service ended. Open Postern to see why and what to do.',
      },
    ]);
  });

  it('redraws the list as listeners open and close; errors alone do not notify', () => {
    const w = world();
    w.emit({ type: 'listening', service: 'git', address: '127.0.0.1:9418' });
    w.emit({ type: 'closed', service: 'git', address: '127.0.0.1:9418' });
    w.emit({ type: 'error', service: 'git', message: 'could not listen on loopback' });
    expect(w.redraws()).toBe(2);
    expect(w.notes).toEqual([]);
  });

  it('stops after unsubscribing', () => {
    const w = world();
    w.off();
    w.emit({ type: 'revoked', service: 'git' });
    w.emit({ type: 'listening', service: 'git', address: '127.0.0.1:9418' });
    expect(w.notes).toEqual([]);
    expect(w.redraws()).toBe(0);
  });
});
