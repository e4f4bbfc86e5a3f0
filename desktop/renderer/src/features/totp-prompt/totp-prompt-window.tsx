/**
 * The small always-on-top window main opens on wake, unlock or before an MFA timeout: why it opened ("This
 * device was unlocked."), the grace countdown ("Enter your code within 4:32 to keep access to wiki and git"),
 * the services it covers, and one code field that also takes a recovery code.
 */
import { useEffect } from 'react';
import { promptHeadline, promptWhy, remainingMs } from '../../../../../src/api/prompts.js';
import type { PromptView } from '../../../../ipc/views.js';
import { CodeForm } from '../../components/code-form.js';
import { useNow, usePrompt, usePromptAnswer } from '../../lib/hooks.js';
import { postern } from '../../lib/postern.js';

export function TotpPromptWindow() {
  const prompt = usePrompt();
  useEffect(() => {
    document.title = 'Postern: authenticator code';
  }, []);
  return (
    <main className="prompt-window">
      {prompt ? (
        <PromptBody prompt={prompt} />
      ) : (
        <p role="status">{prompt === null ? 'No code is needed right now.' : 'Loading…'}</p>
      )}
    </main>
  );
}

function PromptBody({ prompt }: { prompt: PromptView }) {
  const now = useNow();
  const answer = usePromptAnswer(prompt);
  const left = remainingMs(prompt, now);
  // The countdown is announced once a minute, not every second.
  const spoken = left === null ? '' : `${Math.ceil(left / 60_000)} minutes left`;
  return (
    <section aria-labelledby="prompt-title">
      <p className="prompt-why">{promptWhy(prompt, now)}</p>
      <h1 id="prompt-title" className="countdown">
        {promptHeadline(prompt, now)}
      </h1>
      <span className="visually-hidden" aria-live="polite">
        {spoken}
      </span>
      {prompt.services.length > 3 && (
        <ul aria-label="Services this code keeps">
          {prompt.services.map((s) => (
            <li key={s.id}>{s.name}</li>
          ))}
        </ul>
      )}
      <CodeForm
        label="Authenticator code"
        submitLabel="Submit"
        acceptsRecoveryCode={prompt.acceptsRecoveryCode}
        autoFocus
        clearOnSubmit
        busy={answer.busy}
        error={answer.error}
        onSubmit={answer.run}
      >
        <button type="button" className="secondary" onClick={() => void postern.prompt.dismiss()}>
          Not now
        </button>
        <button type="button" className="secondary" onClick={() => void postern.app.show('services')}>
          Open Postern
        </button>
      </CodeForm>
    </section>
  );
}
