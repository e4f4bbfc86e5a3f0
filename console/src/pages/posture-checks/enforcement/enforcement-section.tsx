/**
 * How a posture check is enforced: at once, only reported (the administrator sees who would be refused, nobody
 * is), or a warning until a deadline (users are told what to fix and by when; from then on it refuses). The
 * API checks the deadline and names `enforcement.enforceFrom` or `enforcement.mode`; the error shows here.
 */
import { messageFor, problemsUnder, type FieldErrors } from '../../../lib/field-errors.js';
import { SelectField } from '../../../components/fields.js';
import { DateTimeField } from '../../../components/date-time-field.js';
import type { EnforcementMode } from '../../../api/rollout-types.js';
import { suggestedDeadline, type EnforcementState } from './enforcement-state.js';

const MODE_OPTIONS: { value: EnforcementMode; label: string }[] = [
  { value: 'enforce', label: 'Enforce: a device that fails loses the services' },
  { value: 'report-only', label: 'Report only: record who would fail, refuse nobody' },
  { value: 'warn', label: 'Warn, then enforce from a date' },
];

const MODE_HINTS: Record<EnforcementMode, string> = {
  enforce: 'As OpenZiti does: the check refuses from the moment it is saved.',
  'report-only':
    'Devices keep their access; the overview shows which would fail, with what they reported. Users are not told.',
  warn: 'Until the date, devices that fail keep their access and their users are told what to fix and by when; from then on the check refuses, exactly on time.',
};

export function EnforcementSection({
  value,
  onChange,
  errors,
}: {
  value: EnforcementState;
  onChange: (value: EnforcementState) => void;
  errors: FieldErrors;
}) {
  // The deadline's error shows at the deadline when there is one on screen; anything else at the mode.
  const deadlineError = value.mode === 'warn' ? messageFor(errors, 'enforcement.enforceFrom') : undefined;
  const otherError = problemsUnder(errors, 'enforcement')
    .filter((p) => !(deadlineError && p.field === 'enforcement.enforceFrom'))
    .map((p) => p.reason)
    .join('; ');
  return (
    <fieldset>
      <legend>Enforcement</legend>
      <SelectField
        label="Mode"
        name="enforcement.mode"
        value={value.mode}
        options={MODE_OPTIONS}
        onChange={(mode) =>
          onChange({
            mode,
            enforceFrom: mode === 'warn' && !value.enforceFrom ? suggestedDeadline() : value.enforceFrom,
          })
        }
        hint={MODE_HINTS[value.mode]}
        error={otherError || undefined}
      />
      {value.mode === 'warn' && (
        <DateTimeField
          label="Enforce from"
          name="enforcement.enforceFrom"
          value={value.enforceFrom}
          onChange={(enforceFrom) => onChange({ ...value, enforceFrom })}
          hint="Your local time. A date already past makes the check enforce at once."
          error={deadlineError}
        />
      )}
    </fieldset>
  );
}
