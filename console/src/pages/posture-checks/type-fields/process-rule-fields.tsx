/** One process rule: the OS it applies to, the binary's path, and the approved hashes and signers. */
import { LinesField, SelectField, TextField } from '../../../components/fields.js';
import { messageFor, type FieldErrors } from '../../../lib/field-errors.js';
import { OS_TYPES, type ProcessRuleState } from '../check-form-state.js';

export function ProcessRuleFields({
  rule,
  onChange,
  errors,
  prefix,
}: {
  rule: ProcessRuleState;
  onChange: (rule: ProcessRuleState) => void;
  errors: FieldErrors;
  /** the rule's field in the API's names: `process` or `processes[2]` */
  prefix: string;
}) {
  const set = (patch: Partial<ProcessRuleState>) => onChange({ ...rule, ...patch });
  return (
    <>
      <SelectField
        label="Operating system"
        name={`${prefix}.osType`}
        value={rule.osType}
        options={OS_TYPES}
        onChange={(osType) => set({ osType })}
        hint="The rule applies only to devices of this OS family."
        error={messageFor(errors, `${prefix}.osType`)}
      />
      <TextField
        label="Path of the binary"
        name={`${prefix}.path`}
        value={rule.path}
        onChange={(path) => set({ path })}
        placeholder="/opt/sensor/bin/sensord"
        error={messageFor(errors, `${prefix}.path`)}
      />
      <LinesField
        label="Approved sha256 hashes"
        name={`${prefix}.hashes`}
        value={rule.hashes}
        onChange={(hashes) => set({ hashes })}
        hint="One per line; none: any build."
        error={messageFor(errors, `${prefix}.hashes`)}
      />
      <LinesField
        label="Approved signer fingerprints (Windows)"
        name={`${prefix}.signerFingerprints`}
        value={rule.signerFingerprints}
        onChange={(signerFingerprints) => set({ signerFingerprints })}
        hint="SHA-1 thumbprints, one per line; none: any signer."
        rows={2}
        error={messageFor(errors, `${prefix}.signerFingerprints`)}
      />
    </>
  );
}
