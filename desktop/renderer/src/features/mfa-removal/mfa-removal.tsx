/** Removing MFA: asks for an authenticator or recovery code and says what removal means before doing it. */
import type { MfaStatusView } from '../../../../ipc/views.js';
import { CodeForm } from '../../components/code-form.js';
import { useAction } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';

export function MfaRemoval({
  onRemoved,
  onCancel,
}: {
  onRemoved: (status: MfaStatusView) => void;
  onCancel: () => void;
}) {
  const remove = useAction(postern.mfa.remove);
  return (
    <section className="card" aria-labelledby="remove-title">
      <h1 id="remove-title">Remove MFA</h1>
      <p className="notice">
        Without an authenticator app, services whose policy requires MFA will be blocked until you set one up
        again.
      </p>
      <CodeForm
        label="Authenticator or recovery code"
        submitLabel="Remove MFA"
        acceptsRecoveryCode
        destructive
        autoFocus
        busy={remove.busy}
        error={remove.error}
        onSubmit={async (code) => {
          const status = await remove.run({ code });
          if (status) onRemoved(status);
        }}
      >
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </CodeForm>
    </section>
  );
}
