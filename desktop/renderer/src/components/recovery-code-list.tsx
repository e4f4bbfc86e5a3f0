/** Recovery codes with Save (a file, through main's Save dialog) and Copy; what happened is announced. */
import { useState } from 'react';
import { messageOf, postern } from '../lib/postern.js';

export function RecoveryCodeList({ codes, onSaved }: { codes: string[]; onSaved?: () => void }) {
  const [status, setStatus] = useState<string | null>(null);
  const act = (work: () => Promise<string | null>) => () =>
    void work().then(
      (message) => {
        setStatus(message);
        if (message) onSaved?.();
      },
      (error: unknown) => setStatus(messageOf(error)),
    );
  return (
    <div>
      <ul className="codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="actions">
        <button
          type="button"
          onClick={act(async () =>
            (await postern.mfa.saveRecoveryCodes({ codes })).saved ? 'Saved.' : null,
          )}
        >
          Save codes…
        </button>
        <button
          type="button"
          className="secondary"
          onClick={act(
            async () => (await postern.mfa.copyRecoveryCodes({ codes }), 'Copied to the clipboard.'),
          )}
        >
          Copy
        </button>
        <span role="status" className="hint">
          {status}
        </span>
      </div>
    </div>
  );
}
