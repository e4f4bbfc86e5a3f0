/**
 * Enrollment in three steps: scan the QR (or type the secret), save the recovery codes (shown this once,
 * with Save and Copy), then verify a code. The screen is replaced only once the controller accepted the
 * code, so nothing vanishes on a refused one.
 */
import { useEffect, useState } from 'react';
import type { EnrollmentView, MfaStatusView } from '../../../../ipc/views.js';
import { CodeForm } from '../../components/code-form.js';
import { RecoveryCodeList } from '../../components/recovery-code-list.js';
import { useAction } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';

type Step = 'scan' | 'codes' | 'verify';
const STEPS: { step: Step; label: string }[] = [
  { step: 'scan', label: '1. Add to your app' },
  { step: 'codes', label: '2. Save recovery codes' },
  { step: 'verify', label: '3. Verify' },
];

/** `JBSWY3DPEHPK3PXP` → `JBSW Y3DP EHPK 3PXP`: easier to type by hand. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

export function MfaEnrollment({
  onVerified,
  onCancel,
}: {
  onVerified: (status: MfaStatusView) => void;
  onCancel: () => void;
}) {
  const [enrollment, setEnrollment] = useState<EnrollmentView | null>(null);
  const [step, setStep] = useState<Step>('scan');
  const [saved, setSaved] = useState(false);
  const start = useAction(postern.mfa.startEnrollment);
  const verify = useAction(postern.mfa.verifyEnrollment);
  const { run } = start;
  useEffect(() => void run().then((started) => started && setEnrollment(started)), [run]);

  return (
    <section className="card" aria-labelledby="enroll-title">
      <h1 id="enroll-title">Set up an authenticator app</h1>
      <ol className="steps" aria-label="Steps">
        {STEPS.map((s) => (
          <li key={s.step} aria-current={s.step === step ? 'step' : undefined}>
            {s.label}
          </li>
        ))}
      </ol>
      {start.error && (
        <p className="error" role="alert">
          {start.error}
        </p>
      )}
      {!enrollment && !start.error && <p aria-busy="true">Starting…</p>}
      {enrollment && step === 'scan' && (
        <div className="enroll-grid">
          <img
            className="qr"
            src={enrollment.qrDataUrl}
            alt="QR code that adds your Postern account to an authenticator app"
          />
          <div>
            <p>
              Scan the QR code with your authenticator app (Google Authenticator, Microsoft Authenticator,
              1Password, …).
            </p>
            <p id="secret-label">Cannot scan it? Add the account by hand with this key:</p>
            <p className="secret" aria-labelledby="secret-label" data-testid="mfa-secret">
              {grouped(enrollment.secret)}
            </p>
            <div className="actions">
              <button type="button" onClick={() => setStep('codes')}>
                Next
              </button>
              <button type="button" className="secondary" onClick={onCancel}>
                Cancel
              </button>
            </div>
          </div>
        </div>
      )}
      {enrollment && step === 'codes' && (
        <>
          <p>
            Save these recovery codes somewhere safe. Each one works once in place of an authenticator code if
            you lose your phone. You can show them again later on the MFA page, with a code from your app.
          </p>
          <RecoveryCodeList codes={enrollment.recoveryCodes} onSaved={() => setSaved(true)} />
          <p>
            <label className="check">
              <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />I have
              saved my recovery codes
            </label>
          </p>
          <div className="actions">
            <button type="button" disabled={!saved} onClick={() => setStep('verify')}>
              Next
            </button>
            <button type="button" className="secondary" onClick={() => setStep('scan')}>
              Back
            </button>
          </div>
        </>
      )}
      {enrollment && step === 'verify' && (
        <CodeForm
          label="Code from your authenticator app"
          submitLabel="Verify"
          autoFocus
          busy={verify.busy}
          error={verify.error}
          onSubmit={async (code) => {
            const status = await verify.run({ code });
            if (status) {
              setEnrollment(null);
              onVerified(status);
            }
          }}
        >
          <button type="button" className="secondary" onClick={() => setStep('codes')}>
            Back
          </button>
        </CodeForm>
      )}
    </section>
  );
}
