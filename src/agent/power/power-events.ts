/**
 * The power and session events the agent reacts to. The desktop app maps Electron's powerMonitor onto
 * this port; on Linux, where Electron has no lock/unlock events, a logind/screensaver D-Bus source adds
 * them; the CLI can also raise them by hand (`wake`, `unlock`) to try the prompts out.
 */
import { Listeners } from '../../common/listeners.js';

export const POWER_EVENTS = ['suspend', 'resume', 'lock-screen', 'unlock-screen'] as const;
export type PowerEvent = (typeof POWER_EVENTS)[number];

export interface PowerEvents {
  /** Returns the unsubscribe function. */
  subscribe(listener: (event: PowerEvent) => void): () => void;
}

/** A source that owns a process or a subscription and must be closed. */
export interface PowerEventSource extends PowerEvents {
  close(): void;
}

/** Events raised by calling `emit`: the adapter for powerMonitor, and the fake in tests. */
export class PowerEventEmitter implements PowerEventSource {
  private readonly listeners = new Listeners<PowerEvent>();

  subscribe(listener: (event: PowerEvent) => void): () => void {
    return this.listeners.on(listener);
  }

  emit(event: PowerEvent): void {
    this.listeners.emit(event);
  }

  /** Forwards another source's events (e.g. the D-Bus source into the CLI's emitter). */
  forward(source: PowerEvents): () => void {
    return source.subscribe((event) => this.emit(event));
  }

  close(): void {
    this.listeners.clear();
  }
}
