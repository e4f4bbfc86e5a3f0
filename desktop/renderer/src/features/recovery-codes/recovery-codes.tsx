/**
 * Recovery codes: show the current ones or replace them with new ones, each after an authenticator code.
 * Replacing says first that the old codes stop working.
 */
import { useState } from 'react';
import { CodeForm } from '../../components/code-form.js';
import { RecoveryCodeList } from '../../components/recovery-code-list.js';
import { useAction } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';

type Intent = 'show' | 'regenerate';

export function RecoveryCodes({ onClose }: { onClose: () => void }) {
  const [intent, setIntent] = useState<Intent>('show');
  const [codes, setCodes] = useState<string[] | null>(null);
  const show = useAction(postern.mfa.recoveryCodes);
  const regenerate = useAction(postern.mfa.regenerateRecoveryCodes);
  const action = intent === 'show' ? show : regenerate;
  return (
    <section className="card" aria-labelledby="codes-title">
      <h1 id="codes-title">Recovery codes</h1>
      {codes ? (
        <>
          <p>
            {intent === 'regenerate'
              ? 'Your new recovery codes. The old ones no longer work.'
              : 'Your current recovery codes.'}
          </p>
          <RecoveryCodeList codes={codes} />
          <div className="actions">
            <button type="button" className="secondary" onClick={onClose}>
              Done
            </button>
          </div>
        </>
      ) : (
        <>
          <fieldset className="actions">
            <legend className="visually-hidden">What to do</legend>
            <label className="check">
              <input
                type="radio"
                name="intent"
                checked={intent === 'show'}
                onChange={() => setIntent('show')}
              />
              Show my recovery codes
            </label>
            <label className="check">
              <input
                type="radio"
                name="intent"
                checked={intent === 'regenerate'}
                onChange={() => setIntent('regenerate')}
              />
              Replace them with new codes
            </label>
          </fieldset>
          {intent === 'regenerate' && (
            <p className="notice">New codes replace the old ones: codes you saved before stop working.</p>
          )}
          <CodeForm
            label="Code from your authenticator app"
            submitLabel={intent === 'show' ? 'Show codes' : 'Replace codes'}
            autoFocus
            busy={action.busy}
            error={action.error}
            onSubmit={async (code) => {
              const result = await action.run({ code });
              if (result) setCodes(result.codes);
            }}
          >
            <button type="button" className="secondary" onClick={onClose}>
              Cancel
            </button>
          </CodeForm>
        </>
      )}
    </section>
  );
}
