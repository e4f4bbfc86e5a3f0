/**
 * "Enroll with a token": the token pasted, opened from a file or read from a picture of its QR code, the
 * controller it names shown before anything is sent, then one call to main, which checks the token against
 * that controller, makes this device's key (or sets the new password) and signs in.
 */
import { useRef, useState } from 'react';
import type { SessionView } from '../../../../ipc/views.js';
import { useAction } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';
import { OpenQrImage } from './open-qr-image.js';
import { summariseToken } from './token-summary.js';

/** A token file is a few hundred bytes; anything much larger is not one. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

export function EnrollWithToken({ session, onCancel }: { session: SessionView; onCancel: () => void }) {
  const [token, setToken] = useState('');
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);
  const enroll = useAction(postern.session.enroll);
  const summary = summariseToken(token, Date.now());
  const busy = enroll.busy || session.status === 'signing-in';
  const needsPassword = summary?.ok === true && summary.method === 'updb';
  const mismatch = needsPassword && repeat !== '' && password !== repeat;
  const error = fileProblem ?? enroll.error ?? session.message;

  async function openFile(file: File | undefined) {
    setFileProblem(null);
    if (!file) return;
    if (file.size > MAX_TOKEN_FILE_BYTES)
      return setFileProblem(`${file.name} is too large to be a token file.`);
    setToken((await file.text()).trim());
  }

  return (
    <form
      aria-describedby={error ? 'enroll-error' : undefined}
      onSubmit={(event) => {
        event.preventDefault();
        if (!summary?.ok || summary.expired || mismatch) return;
        void enroll.run({
          token: token.trim(),
          ...(needsPassword ? { password, ...(summary.username ? {} : { username: username.trim() }) } : {}),
        });
      }}
    >
      <label htmlFor="enroll-token">Enrollment token</label>
      <textarea
        id="enroll-token"
        rows={5}
        spellCheck={false}
        placeholder="Paste the token your administrator sent (it starts with eyJ)"
        value={token}
        onChange={(e) => {
          setToken(e.target.value);
          // A problem with a file or picture opened before is not about the token now in the box.
          setFileProblem(null);
        }}
      />
      <div className="actions">
        <button type="button" className="secondary" onClick={() => fileInput.current?.click()}>
          Open a token file…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".jwt,.txt,text/plain"
          hidden
          aria-label="Token file"
          onChange={(e) => void openFile(e.target.files?.[0])}
        />
        <OpenQrImage onToken={setToken} onProblem={setFileProblem} />
      </div>
      {summary?.ok === false && <p className="notice">{summary.problem}</p>}
      {summary?.ok && (
        <p className={summary.expired ? 'notice' : 'hint'} aria-live="polite" data-testid="token-summary">
          {summary.expired
            ? `This token expired on ${summary.expiresAt.toLocaleString()}. Ask your administrator for a new one.`
            : `Enrolls this device with the controller at ${summary.controllerUrl}, ${
                summary.method === 'ott'
                  ? 'with a certificate for a key made on this device'
                  : 'with a new password'
              }. Valid until ${summary.expiresAt.toLocaleString()}.`}
        </p>
      )}
      {needsPassword && !summary.username && (
        <>
          <label htmlFor="enroll-username">Username</label>
          <input
            id="enroll-username"
            type="text"
            required
            autoComplete="username"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </>
      )}
      {needsPassword && (
        <>
          <label htmlFor="enroll-password">New password</label>
          <input
            id="enroll-password"
            type="password"
            required
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <label htmlFor="enroll-repeat">Repeat the new password</label>
          <input
            id="enroll-repeat"
            type="password"
            required
            autoComplete="new-password"
            aria-invalid={mismatch}
            value={repeat}
            onChange={(e) => setRepeat(e.target.value)}
          />
          {mismatch && <p className="hint">The two passwords differ.</p>}
        </>
      )}
      {error && (
        <p id="enroll-error" className="error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={busy || !summary?.ok || summary.expired || mismatch}>
          {busy ? 'Enrolling…' : 'Enroll'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Sign in with a password instead
        </button>
      </div>
    </form>
  );
}
