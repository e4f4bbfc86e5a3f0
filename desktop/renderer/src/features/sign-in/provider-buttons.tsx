/**
 * "Sign in with <provider>": one button per identity provider the controller offers (its external JWT
 * signers), read again when the controller URL changes. The sign-in itself happens in the system browser;
 * this screen waits for it (main's loopback redirect receives the provider's answer).
 */
import { useEffect, useState } from 'react';
import type { ProviderView } from '../../../../ipc/views.js';
import { useAction } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';

/** A URL worth asking (main checks it again): http(s) and complete. */
function looksLikeUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** Reading the list waits this long after the last keystroke in the URL field. */
const READ_DELAY_MS = 400;

export function ProviderButtons({ controllerUrl, disabled }: { controllerUrl: string; disabled: boolean }) {
  const [providers, setProviders] = useState<ProviderView[]>([]);
  const signIn = useAction(postern.session.signInWithProvider);
  useEffect(() => {
    setProviders([]);
    if (!looksLikeUrl(controllerUrl)) return;
    let live = true;
    const timer = setTimeout(() => {
      postern.session.providers({ controllerUrl }).then(
        (list) => live && setProviders(list),
        () => undefined,
      );
    }, READ_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [controllerUrl]);
  if (providers.length === 0) return null;
  return (
    <div className="providers" aria-label="Identity providers">
      {providers.map((p) => (
        <button
          key={p.id}
          type="button"
          className="secondary"
          disabled={disabled || signIn.busy}
          onClick={() => void signIn.run({ controllerUrl, providerId: p.id })}
        >
          Sign in with {p.name}
        </button>
      ))}
      {signIn.busy && <p className="notice">Continue in your browser; this window waits for it.</p>}
      {signIn.error && (
        <p className="error" role="alert">
          {signIn.error}
        </p>
      )}
    </div>
  );
}
