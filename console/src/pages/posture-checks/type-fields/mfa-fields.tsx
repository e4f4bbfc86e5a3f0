/** MFA check: how long a code lasts, and whether a wake or an unlock asks for a new one (5 minutes' grace). */
import { CheckboxField, TextField } from '../../../components/fields.js';
import { messageFor, type FieldErrors } from '../../../lib/field-errors.js';
import type { CheckFormState } from '../check-form-state.js';

export function MfaFields({
  state,
  onChange,
  errors,
}: {
  state: CheckFormState;
  onChange: (patch: Partial<CheckFormState>) => void;
  errors: FieldErrors;
}) {
  return (
    <>
      <TextField
        label="Timeout (seconds)"
        name="timeoutSeconds"
        value={state.timeoutSeconds}
        onChange={(timeoutSeconds) => onChange({ timeoutSeconds })}
        hint="How long an authenticator code keeps access; -1 for no timeout (28800 = 8 hours)."
        error={messageFor(errors, 'timeoutSeconds')}
      />
      <CheckboxField
        label="Ask again after the device wakes"
        name="promptOnWake"
        checked={state.promptOnWake}
        onChange={(promptOnWake) => onChange({ promptOnWake })}
      />
      <CheckboxField
        label="Ask again after the screen is unlocked"
        name="promptOnUnlock"
        checked={state.promptOnUnlock}
        onChange={(promptOnUnlock) => onChange({ promptOnUnlock })}
      />
      <CheckboxField
        label="No timeout for clients that cannot re-prompt (OpenZiti's legacy endpoints)"
        name="ignoreLegacyEndpoints"
        checked={state.ignoreLegacyEndpoints}
        onChange={(ignoreLegacyEndpoints) => onChange({ ignoreLegacyEndpoints })}
      />
    </>
  );
}
