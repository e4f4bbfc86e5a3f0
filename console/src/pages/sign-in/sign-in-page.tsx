/**
 * Sign-in: username and password, or "Sign in with <provider>" for each identity provider the controller
 * offers (the provider's page, then back here); then the authenticator code on the same card when the
 * controller says one is owed. Only administrators get past it (auth.ts).
 */
import { useEffect, useState } from 'react';
import { signIn, submitTotp, type SignInStep } from '../../api/auth.js';
import {
  finishProviderSignIn,
  isProviderReturn,
  listProviders,
  startProviderSignIn,
  type ConsoleProvider,
} from '../../api/provider-sign-in.js';
import { ApiError } from '../../api/api-error.js';
import type { Identity } from '../../api/types.js';
import { TextField } from '../../components/fields.js';

function words(error: unknown, viaProvider = false): string {
  if (!(error instanceof ApiError)) return 'Something went wrong. Try again.';
  switch (error.code) {
    case 'INVALID_AUTH':
      return viaProvider
        ? 'The controller did not accept this sign-in: no identity matches it here, or its auth policy does not allow this provider.'
        : 'The username or password is not right.';
    case 'MFA_INVALID_TOKEN':
      return 'That code is not right (or was used already). Wait for the next one.';
    case 'RATE_LIMITED':
      return `Too many attempts. ${error.message}`;
    case 'COULD_NOT_VALIDATE':
      return error.summary;
    default:
      return error.message;
  }
}

export function SignInPage({
  notice,
  onSignedIn,
}: {
  notice: string | null;
  onSignedIn: (identity: Identity) => void;
}) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<'password' | 'totp' | 'enroll-first'>('password');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const follow = (next: SignInStep) => {
    if (next.step === 'done') onSignedIn(next.identity);
    else setStep(next.step);
  };
  const run = async (action: () => Promise<SignInStep>, viaProvider = false) => {
    setBusy(true);
    setError(null);
    try {
      follow(await action());
    } catch (err) {
      setError(words(err, viaProvider));
    } finally {
      setBusy(false);
    }
  };
  const [providers, setProviders] = useState<ConsoleProvider[]>([]);
  useEffect(() => {
    // Back from the provider: finish that sign-in (once: the pending state is removed as it is read). On
    // arrival only, so no dependencies.
    if (isProviderReturn()) void run(finishProviderSignIn, true);
    listProviders().then(setProviders, () => undefined);
  }, []);
  /** Leaves for the provider's page; busy until the browser has gone there. */
  const leaveFor = async (provider: ConsoleProvider) => {
    setBusy(true);
    setError(null);
    try {
      await startProviderSignIn(provider);
    } catch (err) {
      setError(words(err, true));
      setBusy(false);
    }
  };

  return (
    <main className="narrow">
      <div className="card">
        <h1>Postern console</h1>
        <p className="hint">For administrators of this controller.</p>
        {notice && step === 'password' && <p className="notice">{notice}</p>}
        {step === 'password' && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void run(() => signIn(username.trim(), password));
            }}
          >
            <TextField
              label="Username"
              name="username"
              value={username}
              onChange={setUsername}
              autoComplete="username"
              required
            />
            <TextField
              label="Password"
              name="password"
              type="password"
              value={password}
              onChange={setPassword}
              autoComplete="current-password"
              required
            />
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            <div className="actions">
              <button type="submit" disabled={busy}>
                {busy ? 'Signing in…' : 'Sign in'}
              </button>
            </div>
            {providers.length > 0 && (
              <div className="actions" aria-label="Identity providers">
                {providers.map((p) => (
                  <button
                    key={p.id}
                    type="button"
                    className="secondary"
                    disabled={busy}
                    onClick={() => void leaveFor(p)}
                  >
                    Sign in with {p.name}
                  </button>
                ))}
              </div>
            )}
          </form>
        )}
        {step === 'totp' && (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const typed = code.trim();
              setCode('');
              void run(() => submitTotp(typed));
            }}
          >
            <p>Your account requires a second factor.</p>
            <TextField
              label="Authenticator code"
              name="code"
              value={code}
              onChange={setCode}
              autoComplete="one-time-code"
              hint="The 6-digit code from your authenticator app, or a recovery code."
              required
            />
            {error && (
              <p className="error" role="alert">
                {error}
              </p>
            )}
            <div className="actions">
              <button type="submit" disabled={busy || code.trim() === ''}>
                {busy ? 'Checking…' : 'Verify'}
              </button>
            </div>
          </form>
        )}
        {step === 'enroll-first' && (
          <>
            <p className="notice" role="alert">
              Your account must set up an authenticator app before it can sign in here. Set it up with the
              agent (<code>npm run agent -- mfa setup</code>) or the API (
              <code>POST /current-identity/mfa</code>
              ), then sign in again.
            </p>
            <div className="actions">
              <button
                type="button"
                onClick={() => {
                  setPassword('');
                  setError(null);
                  setStep('password');
                }}
              >
                Back to sign-in
              </button>
            </div>
          </>
        )}
      </div>
    </main>
  );
}
