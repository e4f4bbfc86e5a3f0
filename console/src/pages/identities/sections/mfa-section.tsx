/**
 * The identity's MFA: on or off, and Reset for a lost phone (`DELETE /identities/<id>/mfa`): the enrollment
 * and recovery codes are removed, the identity's other sessions end and it enrolls again.
 */
import { api } from '../../../api/client.js';
import type { Identity } from '../../../api/types.js';
import { ConfirmButton } from '../../../components/confirm-button.js';
import { Badge } from '../../../components/status.js';

export function MfaSection({ identity, onChanged }: { identity: Identity; onChanged: () => void }) {
  return (
    <section className="card" aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">MFA</h2>
      <p>
        {identity.isMfaEnabled ? (
          <>
            <Badge tone="granted">on</Badge> {identity.name} signs in with an authenticator code.
          </>
        ) : (
          <>
            <Badge tone="checking">off</Badge> No authenticator app is set up.
          </>
        )}
      </p>
      {identity.isMfaEnabled && (
        <ConfirmButton
          label="Reset MFA"
          question={`Remove ${identity.name}'s authenticator and recovery codes? Their sessions end and they set it up again.`}
          onConfirm={async () => {
            await api.delete(`/identities/${identity.id}/mfa`);
            onChanged();
          }}
        />
      )}
    </section>
  );
}
