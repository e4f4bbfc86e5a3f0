/**
 * The identity's outstanding enrollments (OpenZiti's `enrollment.ott` and `enrollment.updb`): the enrollment
 * JWT as a QR code for the device to scan and as text, its expiry, and Re-issue
 * (`POST /enrollments/<id>/refresh`: a new token, the old one stops working).
 */
import { useState } from 'react';
import { api } from '../../../api/client.js';
import type { Identity, PendingEnrollment } from '../../../api/types.js';
import { QrImage } from '../../../components/qr-image.js';
import { ErrorNote, When } from '../../../components/status.js';

const METHOD_WORDS: Record<string, string> = {
  ott: 'One-time token: the device makes its key and gets a certificate',
  updb: 'One-time token: the user chooses the password of their login',
};

export function EnrollmentSection({ identity, onChanged }: { identity: Identity; onChanged: () => void }) {
  const pending = Object.entries(identity.enrollment ?? {}).filter(
    (entry): entry is [string, PendingEnrollment] => !!entry[1] && !!(entry[1].jwt ?? entry[1].token),
  );
  return (
    <section className="card" aria-labelledby="enrollment-heading">
      <h2 id="enrollment-heading">Enrollment</h2>
      {pending.length === 0 && (
        <p className="hint">
          No enrollment is pending: the identity has enrolled, or signs in with a password set here.
        </p>
      )}
      {pending.map(([method, enrollment]) => (
        <PendingToken
          key={method}
          method={method}
          enrollment={enrollment}
          identity={identity}
          onChanged={onChanged}
        />
      ))}
    </section>
  );
}

function PendingToken({
  method,
  enrollment,
  identity,
  onChanged,
}: {
  method: string;
  enrollment: PendingEnrollment;
  identity: Identity;
  onChanged: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const secret = enrollment.jwt ?? enrollment.token ?? '';
  const expired = enrollment.expiresAt ? new Date(enrollment.expiresAt).getTime() < Date.now() : false;
  const reissue = async () => {
    setBusy(true);
    setError(null);
    try {
      // No expiry given: the controller's own enrollment lifetime from now.
      await api.post(`/enrollments/${enrollment.id}/refresh`, {});
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="enroll-grid" data-testid={`enrollment-${method}`}>
      <QrImage text={secret} label={`Enrollment token for ${identity.name}`} />
      <div>
        <p>
          <strong>{METHOD_WORDS[method] ?? method}</strong>
          {enrollment.username && <> (login {enrollment.username})</>}
        </p>
        <p className={expired ? 'error' : undefined}>
          {expired ? 'Expired ' : 'Expires '}
          <When at={enrollment.expiresAt} />
        </p>
        <p className="hint">The device scans the code, or the token is pasted into the agent:</p>
        <p className="secret" data-testid="enrollment-token">
          {secret}
        </p>
        {enrollment.id && (
          <div className="actions">
            <button type="button" className="secondary" disabled={busy} onClick={() => void reissue()}>
              {busy ? 'Re-issuing…' : 'Re-issue token'}
            </button>
          </div>
        )}
        <ErrorNote error={error} />
      </div>
    </div>
  );
}
