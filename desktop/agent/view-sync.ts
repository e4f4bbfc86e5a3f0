/**
 * Keeps every window current: the agent's session and service changes and the prompt's changes go out as
 * the schema's events, and `onChange` (the tray) hears about each. Electron-free, so the UI tests wire
 * their pages exactly as the app wires its windows.
 */
import type { IpcEvents } from '../ipc/bridge.js';
import type { DesktopAgent } from './desktop-agent.js';
import type { DesktopPrompts } from './desktop-prompts.js';

export function syncViews(
  agent: DesktopAgent,
  prompts: DesktopPrompts,
  events: IpcEvents,
  onChange: () => void = () => {},
): () => void {
  const offs = [
    agent.sessionChanges.on((view) => {
      events.session.changed(view);
      onChange();
    }),
    agent.serviceChanges.on((view) => {
      events.services.changed(view);
      onChange();
    }),
    prompts.changes.on((view) => {
      events.prompt.changed(view);
      onChange();
    }),
  ];
  return () => offs.forEach((off) => void off());
}
