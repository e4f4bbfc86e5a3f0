/**
 * Sign-in: controller URL, username and password, "Sign in with <provider>" for each identity provider the
 * controller offers, or "Enroll with a token" for a device not enrolled yet;
 * then, if the controller asks for it, the authenticator code on the same screen (the agent's `login`
 * prompt), or a code for a session left owing one.
 */
import { useState } from 'react';
import type { PromptView, SessionView } from '../../../../ipc/views.js';
import { CodeForm } from '../../components/code-form.js';
import { useAction, usePrompt, usePromptAnswer } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';
import { EnrollWithToken } from './enroll-with-token.js';
import { ProviderButtons } from './provider-buttons.js';

export function SignIn({ session }: { session: SessionView }) {
  const prompt = usePrompt();
  const loginPrompt = prompt && prompt.reason === 'login' ? prompt : null;
  const [enrolling, setEnrolling] = useState(false);
  return (
    <main>
      <section className="card narrow" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Postern</h1>
        {loginPrompt ? (
          <LoginCode prompt={loginPrompt} />
        ) : session.status === 'needs-code' ? (
          <OwedCode />
        ) : enrolling ? (
          <EnrollWithToken session={session} onCancel={() => setEnrolling(false)} />
        ) : (
          <Credentials session={session} onEnroll={() => setEnrolling(true)} />
        )}
      </section>
    </main>
  );
}

function Credentials({ session, onEnroll }: { session: SessionView; onEnroll: () => void }) {
  const [controllerUrl, setControllerUrl] = useState(session.controllerUrl ?? '');
  const [username, setUsername] = useState(session.username ?? '');
  const [password, setPassword] = useState('');
  const signIn = useAction(postern.session.signIn);
  const busy = signIn.busy || session.status === 'signing-in';
  const error = signIn.error ?? session.message;
  return (
    <form
      aria-describedby={error ? 'sign-in-error' : undefined}
      onSubmit={(event) => {
        event.preventDefault();
        void signIn.run({ controllerUrl: controllerUrl.trim(), username: username.trim(), password });
      }}
    >
      <label htmlFor="controller-url">Controller URL</label>
      <input
        id="controller-url"
        type="url"
        required
        placeholder="https://controller.example.com:1280"
        value={controllerUrl}
        onChange={(e) => setControllerUrl(e.target.value)}
      />
      <label htmlFor="username">Username</label>
      <input
        id="username"
        type="text"
        required
        autoComplete="username"
        value={username}
        onChange={(e) => setUsername(e.target.value)}
      />
      <label htmlFor="password">Password</label>
      <input
        id="password"
        type="password"
        required
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      {error && (
        <p id="sign-in-error" className="error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <button type="button" className="secondary" onClick={onEnroll}>
          Enroll with a token
        </button>
      </div>
      <ProviderButtons controllerUrl={controllerUrl.trim()} disabled={busy} />
    </form>
  );
}

function LoginCode({ prompt }: { prompt: PromptView }) {
  const answer = usePromptAnswer(prompt);
  return (
    <>
      <p>Enter the code from your authenticator app to finish signing in.</p>
      <CodeForm
        label="Authenticator code"
        submitLabel="Continue"
        acceptsRecoveryCode={prompt.acceptsRecoveryCode}
        autoFocus
        clearOnSubmit
        busy={answer.busy}
        error={answer.error}
        onSubmit={answer.run}
      >
        <button type="button" className="secondary" onClick={() => void postern.prompt.dismiss()}>
          Cancel
        </button>
      </CodeForm>
    </>
  );
}

function OwedCode() {
  const submit = useAction(postern.mfa.submitCode);
  return (
    <>
      <p className="notice">
        You are signed in, but your organisation needs your authenticator code before you can reach any
        service.
      </p>
      <CodeForm
        label="Authenticator code"
        submitLabel="Continue"
        acceptsRecoveryCode
        autoFocus
        busy={submit.busy}
        error={submit.error}
        onSubmit={(code) => submit.run({ code })}
      >
        <button type="button" className="secondary" onClick={() => void postern.session.signOut()}>
          Sign out
        </button>
      </CodeForm>
    </>
  );
}
