/**
 * A button for something that cannot be undone: the first click asks, in place, and only "Yes" acts. (No
 * window.confirm: it blocks the page and cannot be styled or read by assistive tools as part of it.)
 */
import { useState } from 'react';
import { errorText } from '../api/api-error.js';

export function ConfirmButton({
  label,
  question,
  onConfirm,
  className = 'danger',
  consequence,
}: {
  label: string;
  question: string;
  onConfirm: () => Promise<unknown>;
  className?: string;
  /** what acting would do, asked for when the button is first clicked and said with the question */
  consequence?: () => Promise<string | null>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  if (!asking) {
    const ask = async () => {
      setSaid(null);
      setError(null);
      setBusy(true);
      try {
        setSaid((await consequence?.()) ?? null);
      } catch (err) {
        setError(errorText(err));
      } finally {
        setBusy(false);
        setAsking(true);
      }
    };
    return (
      <button type="button" className={`${className} small`} disabled={busy} onClick={() => void ask()}>
        {label}
      </button>
    );
  }
  const act = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setAsking(false);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>
        {said && <strong>{said} </strong>}
        {question}
      </span>
      <button type="button" className="danger small" disabled={busy} onClick={() => void act()}>
        Yes, {label.charAt(0).toLowerCase() + label.slice(1)}
      </button>
      <button type="button" className="secondary small" disabled={busy} onClick={() => setAsking(false)}>
        No
      </button>
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
