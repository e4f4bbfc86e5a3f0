/** OS check: one row per allowed operating system, each with its version ranges. */
import { LinesField, SelectField } from '../../../components/fields.js';
import { messageFor, type FieldErrors } from '../../../lib/field-errors.js';
import { OS_TYPES, type CheckFormState } from '../check-form-state.js';

type Os = CheckFormState['operatingSystems'][number];

export function OsFields({
  value,
  onChange,
  errors,
}: {
  value: Os[];
  onChange: (value: Os[]) => void;
  errors: FieldErrors;
}) {
  const set = (i: number, patch: Partial<Os>) =>
    onChange(value.map((os, j) => (j === i ? { ...os, ...patch } : os)));
  const listError = errors.find((p) => p.field === 'operatingSystems');
  return (
    <fieldset>
      <legend>Allowed operating systems</legend>
      {value.map((os, i) => (
        <div key={i} className="rule" role="group" aria-label={`Operating system ${i + 1}`}>
          <SelectField
            label="Operating system"
            name={`operatingSystems[${i}].type`}
            value={os.type}
            options={OS_TYPES}
            onChange={(type) => set(i, { type })}
            error={messageFor(errors, `operatingSystems[${i}].type`)}
          />
          <LinesField
            label="Versions"
            name={`operatingSystems[${i}].versions`}
            value={os.versions}
            onChange={(versions) => set(i, { versions })}
            hint="Semver ranges, one per line (>=10.0.19041, 6.x, >=14 <16); none: any version."
            rows={2}
            error={messageFor(errors, `operatingSystems[${i}].versions`)}
          />
          {value.length > 1 && (
            <button
              type="button"
              className="secondary small"
              onClick={() => onChange(value.filter((_, j) => j !== i))}
            >
              Remove this OS
            </button>
          )}
        </div>
      ))}
      {listError && (
        <p className="field-error" role="alert">
          {listError.reason}
        </p>
      )}
      <button
        type="button"
        className="secondary small"
        onClick={() => onChange([...value, { type: 'Windows', versions: '' }])}
      >
        Add an operating system
      </button>
    </fieldset>
  );
}
