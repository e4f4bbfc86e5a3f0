/**
 * One labelled field for an authenticator code (or a recovery code where the API takes one), with its
 * hint and error announced to screen readers; Enter submits.
 */
import { useId, useState, type ReactNode } from 'react';

export interface CodeFormProps {
  label: string;
  submitLabel: string;
  onSubmit: (code: string) => void | Promise<unknown>;
  busy?: boolean;
  error?: string | null;
  /** Recovery codes are letters and dashes: no numeric keypad then. */
  acceptsRecoveryCode?: boolean;
  hint?: string;
  autoFocus?: boolean;
  /** Buttons next to submit (Cancel, Not now). */
  children?: ReactNode;
  /** Clears the field after each submit (a refused code is retyped, not edited). */
  clearOnSubmit?: boolean;
  /** The submit button does something that cannot be undone. */
  destructive?: boolean;
}

export function CodeForm(props: CodeFormProps) {
  const id = useId();
  const [code, setCode] = useState('');
  const hint =
    props.hint ??
    (props.acceptsRecoveryCode
      ? 'The 6-digit code from your authenticator app, or a recovery code.'
      : 'The 6-digit code from your authenticator app.');
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        const value = code.trim();
        if (props.clearOnSubmit) setCode('');
        void props.onSubmit(value);
      }}
    >
      <label htmlFor={`${id}-code`}>{props.label}</label>
      <input
        id={`${id}-code`}
        type="text"
        className="code-input"
        name="code"
        autoComplete="one-time-code"
        inputMode={props.acceptsRecoveryCode ? 'text' : 'numeric'}
        spellCheck={false}
        autoFocus={props.autoFocus}
        required
        maxLength={24}
        value={code}
        onChange={(event) => setCode(event.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={`${id}-hint${props.error ? ` ${id}-error` : ''}`}
      />
      <p id={`${id}-hint`} className="hint">
        {hint}
      </p>
      {props.error && (
        <p id={`${id}-error`} className="error" role="alert">
          {props.error}
        </p>
      )}
      <div className="actions">
        <button
          type="submit"
          className={props.destructive ? 'danger' : undefined}
          disabled={props.busy || code.trim() === ''}
        >
          {props.busy ? 'Checking…' : props.submitLabel}
        </button>
        {props.children}
      </div>
    </form>
  );
}
