/**
 * MFA overview: tells "not set up", "set up but not finished" and "on" apart (an unfinished enrollment is not
 * MFA on), and leads to enrollment, recovery codes and removal.
 */
import { useCallback, useEffect, useState } from 'react';
import type { MfaStatusView, SessionView } from '../../../../ipc/views.js';
import { useAction } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';
import { MfaEnrollment } from '../mfa-enrollment/mfa-enrollment.js';
import { MfaRemoval } from '../mfa-removal/mfa-removal.js';
import { RecoveryCodes } from '../recovery-codes/recovery-codes.js';

type Mode = 'overview' | 'enroll' | 'remove' | 'codes';

export function MfaPage({ session }: { session: SessionView }) {
  const [status, setStatus] = useState<MfaStatusView | null>(null);
  const [mode, setMode] = useState<Mode>('overview');
  const [done, setDone] = useState<string | null>(null);
  const load = useAction(postern.mfa.status);
  const abandon = useAction(postern.mfa.remove);
  const { run } = load;
  const reload = useCallback(() => void run().then((next) => next && setStatus(next)), [run]);
  useEffect(reload, [reload, session.mfa]);
  const finish = (message: string) => (next: MfaStatusView) => {
    setStatus(next);
    setDone(message);
    setMode('overview');
  };
  const back = () => setMode('overview');

  if (mode === 'enroll')
    return (
      <MfaEnrollment
        onVerified={finish('MFA is on. Your authenticator app now protects your account.')}
        onCancel={back}
      />
    );
  if (mode === 'remove')
    return (
      <MfaRemoval
        onRemoved={finish(
          'MFA was removed. Services that require it stay blocked until you set it up again.',
        )}
        onCancel={back}
      />
    );
  if (mode === 'codes') return <RecoveryCodes onClose={back} />;
  const start = () => {
    setDone(null);
    setMode('enroll');
  };
  return (
    <section aria-labelledby="mfa-title" className="card">
      <h1 id="mfa-title">Multi-factor authentication</h1>
      {session.status === 'needs-enrollment' && (
        <p className="notice">
          Your organisation requires an authenticator app. Set one up to reach your services.
        </p>
      )}
      {done && (
        <p className="success" role="status">
          {done}
        </p>
      )}
      {load.error && (
        <p className="error" role="alert">
          {load.error}
        </p>
      )}
      {!status && !load.error && <p aria-busy="true">Reading your MFA status…</p>}
      {status?.state === 'not-enrolled' && (
        <>
          <p>No authenticator app is set up for your account.</p>
          <div className="actions">
            <button type="button" onClick={start}>
              Set up an authenticator app
            </button>
          </div>
        </>
      )}
      {status?.state === 'unverified' && (
        <>
          <p>Setup was started but not finished: the authenticator app has not confirmed a code yet.</p>
          <div className="actions">
            <button type="button" onClick={start}>
              Continue setup
            </button>
            <button
              type="button"
              className="secondary"
              disabled={abandon.busy}
              onClick={() => void abandon.run({}).then((next) => next && setStatus(next))}
            >
              Cancel setup
            </button>
          </div>
        </>
      )}
      {status?.state === 'enrolled' && (
        <>
          <p>
            MFA is on.
            {status.remainingRecoveryCodes !== null &&
              ` ${status.remainingRecoveryCodes} recovery code${status.remainingRecoveryCodes === 1 ? '' : 's'} left.`}
          </p>
          <div className="actions">
            <button type="button" onClick={() => setMode('codes')}>
              Recovery codes
            </button>
            <button type="button" className="secondary" onClick={() => setMode('remove')}>
              Remove MFA
            </button>
          </div>
        </>
      )}
    </section>
  );
}
