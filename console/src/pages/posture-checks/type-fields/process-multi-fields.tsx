/** PROCESS_MULTI check: several process rules, all of them (AllOf) or any one (AnyOf). */
import { SelectField } from '../../../components/fields.js';
import { messageFor, type FieldErrors } from '../../../lib/field-errors.js';
import { emptyRule, type CheckFormState, type ProcessRuleState } from '../check-form-state.js';
import { ProcessRuleFields } from './process-rule-fields.js';

export function ProcessMultiFields({
  state,
  onChange,
  errors,
}: {
  state: CheckFormState;
  onChange: (patch: Partial<CheckFormState>) => void;
  errors: FieldErrors;
}) {
  const rules = state.processes;
  const setRule = (i: number, rule: ProcessRuleState) =>
    onChange({ processes: rules.map((r, j) => (j === i ? rule : r)) });
  const listError = errors.find((p) => p.field === 'processes');
  return (
    <>
      <SelectField
        label="Semantic"
        name="semantic"
        value={state.semantic}
        options={[
          { value: 'AnyOf', label: 'AnyOf: one of these programs is enough' },
          { value: 'AllOf', label: 'AllOf: every one of them must run' },
        ]}
        onChange={(semantic) => onChange({ semantic })}
        error={messageFor(errors, 'semantic')}
      />
      {rules.map((rule, i) => (
        <fieldset key={i} className="rule">
          <legend>Process {i + 1}</legend>
          <ProcessRuleFields
            rule={rule}
            onChange={(next) => setRule(i, next)}
            errors={errors}
            prefix={`processes[${i}]`}
          />
          {rules.length > 1 && (
            <button
              type="button"
              className="secondary small"
              onClick={() => onChange({ processes: rules.filter((_, j) => j !== i) })}
            >
              Remove process {i + 1}
            </button>
          )}
        </fieldset>
      ))}
      {listError && (
        <p className="field-error" role="alert">
          {listError.reason}
        </p>
      )}
      <button
        type="button"
        className="secondary small"
        onClick={() => onChange({ processes: [...rules, emptyRule()] })}
      >
        Add a process
      </button>
    </>
  );
}
