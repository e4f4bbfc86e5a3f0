/** Small pieces every page uses: a badge, a loading line, an error, an empty state. */
import type { ReactNode } from 'react';
import { errorText } from '../api/api-error.js';

export type Tone = 'granted' | 'blocked' | 'mfa-needed' | 'checking';

export function Badge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="hint" aria-busy="true">
      Loading {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="hint">never</span>;
  const date = new Date(at);
  return (
    <time dateTime={at} title={at}>
      {date.toLocaleString()}
    </time>
  );
}
