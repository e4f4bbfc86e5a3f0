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
}: {
  label: string;
  question: string;
  onConfirm: () => Promise<unknown>;
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!asking) {
    return (
      <button type="button" className={`${className} small`} onClick={() => setAsking(true)}>
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
      <span>{question}</span>
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
