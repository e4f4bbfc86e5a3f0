/**
 * The fields of a posture check type built from its descriptor (src/api/posture-types): a checkbox for a
 * true/false field, a text input for a number or a text, each with the descriptor's label and help, and the
 * API's problem for that field shown at it. A new type's form needs nothing here.
 */
import { CheckboxField, TextField } from '../../../components/fields.js';
import { messageFor, type FieldErrors } from '../../../lib/field-errors.js';
import type { PostureTypeDescriptor } from '../../../../../src/api/posture-types/index.js';
import { isFlag, type OptionValues } from './descriptor-values.js';

export function DescriptorFields({
  descriptor,
  values,
  onChange,
  errors,
}: {
  descriptor: PostureTypeDescriptor;
  values: OptionValues;
  onChange: (values: OptionValues) => void;
  errors: FieldErrors;
}) {
  return (
    <>
      <p className="hint">{`Passes when ${descriptor.description}.`}</p>
      {descriptor.optionFields.map((field) =>
        isFlag(field) ? (
          <CheckboxField
            key={field.name}
            label={field.label}
            name={field.name}
            checked={values[field.name] === true}
            onChange={(checked) => onChange({ ...values, [field.name]: checked })}
            hint={field.help}
            error={messageFor(errors, field.name)}
          />
        ) : (
          <TextField
            key={field.name}
            label={field.label}
            name={field.name}
            value={String(values[field.name] ?? '')}
            onChange={(text) => onChange({ ...values, [field.name]: text })}
            hint={field.help}
            error={messageFor(errors, field.name)}
          />
        ),
      )}
    </>
  );
}
