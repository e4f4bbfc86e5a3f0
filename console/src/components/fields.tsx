/**
 * Labelled inputs with their hint and the API's error for them, announced to screen readers. Each field is
 * named like the API field it edits, so a test (or a person) can tell which error belongs where.
 */
import { useId, type ReactNode } from 'react';

interface FieldShell {
  label: string;
  hint?: ReactNode;
  error?: string;
}

function Described({
  id,
  hint,
  error,
  children,
}: {
  id: string;
  hint?: ReactNode;
  error?: string;
  children: ReactNode;
}) {
  return (
    <>
      {children}
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}

const describedBy = (id: string, hint: unknown, error: unknown) =>
  [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

export function TextField(
  props: FieldShell & {
    name: string;
    value: string;
    onChange: (value: string) => void;
    type?: 'text' | 'password' | 'number' | 'search';
    required?: boolean;
    autoComplete?: string;
    placeholder?: string;
  },
) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <Described id={id} hint={props.hint} error={props.error}>
        <input
          id={id}
          name={props.name}
          type={props.type ?? 'text'}
          value={props.value}
          required={props.required}
          autoComplete={props.autoComplete ?? 'off'}
          placeholder={props.placeholder}
          spellCheck={false}
          onChange={(event) => props.onChange(event.target.value)}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={describedBy(id, props.hint, props.error)}
        />
      </Described>
    </div>
  );
}

/** A list edited one item per line (MAC addresses, hashes, version ranges). */
export function LinesField(
  props: FieldShell & { name: string; value: string; onChange: (value: string) => void; rows?: number },
) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <Described id={id} hint={props.hint ?? 'One per line.'} error={props.error}>
        <textarea
          id={id}
          name={props.name}
          rows={props.rows ?? 3}
          value={props.value}
          spellCheck={false}
          onChange={(event) => props.onChange(event.target.value)}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={describedBy(id, props.hint ?? true, props.error)}
        />
      </Described>
    </div>
  );
}

export function SelectField<T extends string>(
  props: FieldShell & {
    name: string;
    value: T;
    options: readonly (T | { value: T; label: string })[];
    onChange: (value: T) => void;
  },
) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <Described id={id} hint={props.hint} error={props.error}>
        <select
          id={id}
          name={props.name}
          value={props.value}
          onChange={(event) => props.onChange(event.target.value as T)}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={describedBy(id, props.hint, props.error)}
        >
          {props.options.map((option) => {
            const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
            return (
              <option key={value} value={value}>
                {label}
              </option>
            );
          })}
        </select>
      </Described>
    </div>
  );
}

export function CheckboxField(
  props: FieldShell & { name: string; checked: boolean; onChange: (checked: boolean) => void },
) {
  const id = useId();
  return (
    <div className="field">
      <label className="check" htmlFor={id}>
        <input
          id={id}
          name={props.name}
          type="checkbox"
          checked={props.checked}
          onChange={(event) => props.onChange(event.target.checked)}
          aria-describedby={describedBy(id, props.hint, props.error)}
        />
        {props.label}
      </label>
      <Described id={id} hint={props.hint} error={props.error}>
        {null}
      </Described>
    </div>
  );
}

/** Text split into the list the API takes: one item per line, blank lines ignored. */
export const linesOf = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/** Attributes typed as `sales, laptops` (a leading # is dropped, as the API's attributes carry none). */
export const attributesOf = (text: string): string[] =>
  text
    .split(',')
    .map((a) => a.trim().replace(/^#/, ''))
    .filter(Boolean);
