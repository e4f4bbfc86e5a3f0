/** Settings: start at login, and whether the app runs its bundled controller (takes effect at next launch). */
import { useEffect, useState } from 'react';
import type { SettingsView } from '../../../../ipc/views.js';
import { useAction } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';

export function SettingsPage() {
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const update = useAction(postern.settings.update);
  useEffect(() => void postern.settings.get().then(setSettings, () => undefined), []);
  const change = (changes: Partial<SettingsView>) =>
    void update.run(changes).then((next) => next && setSettings(next));
  return (
    <section className="card" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      {!settings ? (
        <p aria-busy="true">Loading…</p>
      ) : (
        <form onSubmit={(e) => e.preventDefault()}>
          <label className="check">
            <input
              type="checkbox"
              checked={settings.startAtLogin}
              disabled={update.busy}
              onChange={(e) => change({ startAtLogin: e.target.checked })}
            />
            Start Postern when I log in
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={settings.useBundledController}
              disabled={update.busy}
              onChange={(e) => change({ useBundledController: e.target.checked })}
            />
            Run the bundled demo controller on this computer
          </label>
          <p className="hint">
            The controller setting takes effect the next time Postern starts. To use another controller, sign
            out and sign in with its URL.
          </p>
          {update.error && (
            <p className="error" role="alert">
              {update.error}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
